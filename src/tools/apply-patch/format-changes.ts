import type { PatchFileChange } from './plan-patch.js';

function counts(change: PatchFileChange): string {
  const parts: string[] = [];
  if (change.linesAdded > 0 || change.action === 'added') parts.push(`+${change.linesAdded}`);
  if (change.linesRemoved > 0 || change.action === 'deleted') parts.push(`-${change.linesRemoved}`);
  return parts.length === 0 ? '' : ` (${parts.join(' ')})`;
}

/**
 * One line a file, for the model: `A path (+3)`, `M path (+2 -1)`, `D path (-10)`,
 * `R from -> to (+1 -1)`; `(overwrote)` when an Add or Move replaced an existing file.
 *
 * @returns the text, starting with `Success.`.
 * @example
 * ```ts
 * formatChanges([{ action: 'updated', path: 'a.ts', linesAdded: 2, linesRemoved: 1 }]);
 * // 'Success. Updated the following files:\nM a.ts (+2 -1)'
 * ```
 */
export function formatChanges(changes: PatchFileChange[]): string {
  const letters = { added: 'A', updated: 'M', deleted: 'D', moved: 'R' } as const;
  const lines = changes.map((change) => {
    const name = change.action === 'moved' ? `${change.from} -> ${change.path}` : change.path;
    return `${letters[change.action]} ${name}${counts(change)}${change.overwrote ? ' (overwrote)' : ''}`;
  });
  return `Success. Updated the following files:\n${lines.join('\n')}`;
}
