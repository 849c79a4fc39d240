import { diff3Merge } from 'node-diff3';
import type { WorktreeConflictHunk, WorktreeMergeStrategy } from './merge-types.js';

/** Options of {@link mergeText}. */
export interface MergeTextOptions {
  /** The user's bytes. */
  ours: Buffer;
  /** The bytes at worktree creation (empty when the file did not exist). */
  base: Buffer;
  /** The worktree's bytes. */
  theirs: Buffer;
  /** How conflicting hunks are settled; `undefined` only reports them. */
  strategy: WorktreeMergeStrategy | undefined;
  /** Label of the worktree side in conflict markers. @default 'worktree' */
  theirsLabel?: string;
}

/** Result of {@link mergeText}. */
export interface MergeTextResult {
  /** The merged bytes (with the strategy applied to conflicting hunks). */
  bytes: Buffer;
  /** The conflicting hunks met, before any strategy settled them. */
  hunks: WorktreeConflictHunk[];
}

// latin1 maps each byte to one char and back, so lines keep their exact bytes (CR, invalid UTF-8, no final newline).
function splitLines(bytes: Buffer): string[] {
  return bytes.toString('latin1').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function decode(lines: string[]): string {
  return Buffer.from(lines.join(''), 'latin1').toString('utf8');
}

function withFinalEol(lines: string[], eol: string): string[] {
  const last = lines.at(-1);
  return last === undefined || last.endsWith('\n') ? lines : [...lines.slice(0, -1), `${last}${eol}`];
}

/**
 * Three-way merge of text by lines (node-diff3), byte-exact: line endings, a missing final
 * newline and non-UTF-8 bytes survive. Changes both sides made identically are not conflicts.
 *
 * @returns the merged bytes and the conflicting hunks (1-based `oursLine`).
 * @example
 * ```ts
 * const { bytes, hunks } = mergeText({ ours, base, theirs, strategy: undefined });
 * if (hunks.length === 0) await writeFile(file, bytes);
 * ```
 */
export function mergeText(options: MergeTextOptions): MergeTextResult {
  const ours = splitLines(options.ours);
  const regions = diff3Merge(ours, splitLines(options.base), splitLines(options.theirs), {
    excludeFalseConflicts: true,
  });
  const eol = options.ours.includes('\r\n') ? '\r\n' : '\n';
  const output: string[] = [];
  const hunks: WorktreeConflictHunk[] = [];
  for (const region of regions) {
    if (region.ok) {
      output.push(...region.ok);
      continue;
    }
    const conflict = region.conflict;
    if (!conflict) continue;
    hunks.push({
      oursLine: conflict.aIndex + 1,
      ours: decode(conflict.a),
      base: decode(conflict.o),
      theirs: decode(conflict.b),
    });
    if (options.strategy === 'theirs') output.push(...conflict.b);
    else if (options.strategy === 'markers') {
      if (output.length > 0) output.push(...withFinalEol(output.splice(-1), eol));
      output.push(`<<<<<<< ours (your folder)${eol}`, ...withFinalEol(conflict.a, eol), `=======${eol}`);
      output.push(
        ...withFinalEol(conflict.b, eol),
        `>>>>>>> theirs (${options.theirsLabel ?? 'worktree'})${eol}`,
      );
    } else output.push(...conflict.a);
  }
  return { bytes: Buffer.from(output.join(''), 'latin1'), hunks };
}
