import { diffArrays } from 'diff';

interface LineOp {
  kind: 'context' | 'remove' | 'add';
  text: string;
  /** Old lines consumed before this op. */
  oldIndex: number;
}

function lineOps(oldLines: string[], newLines: string[]): LineOp[] {
  const ops: LineOp[] = [];
  let oldIndex = 0;
  for (const change of diffArrays(oldLines, newLines)) {
    const kind = change.added ? 'add' : change.removed ? 'remove' : 'context';
    for (const text of change.value) {
      ops.push({ kind, text, oldIndex });
      if (kind !== 'add') oldIndex += 1;
    }
  }
  return ops;
}

/** First index >= from where `pattern` occurs exactly in `lines` (independent of the code under test). */
function firstExactMatch(lines: string[], pattern: string[], from: number): number {
  if (pattern.length === 0) return lines.length;
  for (let at = from; at + pattern.length <= lines.length; at += 1) {
    if (pattern.every((line, offset) => lines[at + offset] === line)) return at;
  }
  return -1;
}

/** Op-index ranges [start, end] of each run of changes. */
function changeGroups(ops: LineOp[]): [number, number][] {
  const groups: [number, number][] = [];
  ops.forEach((op, index) => {
    if (op.kind === 'context') return;
    const last = groups.at(-1);
    if (last !== undefined && last[1] === index - 1) last[1] = index;
    else groups.push([index, index]);
  });
  return groups;
}

function chunksFor(ops: LineOp[], groups: [number, number][], context: number): [number, number][] {
  const chunks: [number, number][] = [];
  for (const [start, end] of groups) {
    const from = Math.max(0, start - context);
    const to = Math.min(ops.length - 1, end + context);
    const last = chunks.at(-1);
    if (last !== undefined && from <= last[1] + 1) last[1] = to;
    else chunks.push([from, to]);
  }
  return chunks;
}

/**
 * Writes the Update File hunk that turns `oldLines` into `newLines`, with the least context
 * (the same for every chunk) that makes each chunk's old lines first occur, searching forward
 * from the previous chunk, exactly where they belong. Undefined when the lines are equal.
 */
export function generateUpdatePatch(
  file: string,
  oldLines: string[],
  newLines: string[],
): string | undefined {
  const ops = lineOps(oldLines, newLines);
  const groups = changeGroups(ops);
  if (groups.length === 0) return undefined;
  for (let context = 1; ; context += 1) {
    const chunks = chunksFor(ops, groups, context);
    let previousEnd = 0;
    const unique = chunks.every(([from, to]) => {
      const slice = ops.slice(from, to + 1);
      const old = slice.filter((op) => op.kind !== 'add').map((op) => op.text);
      const start = slice[0]!.oldIndex;
      const found = firstExactMatch(oldLines, old, previousEnd);
      previousEnd = start + old.length;
      return old.length === 0 ? start === oldLines.length : found === start;
    });
    if (!unique && context <= ops.length) continue;
    const body = chunks.flatMap(([from, to]) => [
      '@@',
      ...ops
        .slice(from, to + 1)
        .map((op) => `${op.kind === 'context' ? ' ' : op.kind === 'add' ? '+' : '-'}${op.text}`),
    ]);
    return ['*** Begin Patch', `*** Update File: ${file}`, ...body, '*** End Patch'].join('\n');
  }
}
