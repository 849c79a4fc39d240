import { applyChunks } from './apply-chunks.js';
import { PatchApplyError } from './patch-apply-error.js';
import type { AddFileHunk, DeleteFileHunk, ParsedPatch, UpdateFileHunk } from './patch-types.js';
import { decodeTextDocument, encodeAddedLines, encodeTextDocument } from './text-document.js';

/** What one hunk did to one file, with line counts. */
export interface PatchFileChange {
  action: 'added' | 'updated' | 'deleted' | 'moved';
  /** The file's path (for `moved`: the target). */
  path: string;
  /** For `moved`: the source path. */
  from?: string;
  /** Lines added (`+` lines; every line of an added file). */
  linesAdded: number;
  /** Lines removed (`-` lines; every line of a deleted file). */
  linesRemoved: number;
  /** An `added` or `moved` file replaced a file that existed. */
  overwrote?: boolean;
}

/** The final state of one path after the whole patch. */
export interface PlannedWrite {
  path: string;
  /** The new bytes, or undefined when the file is deleted. */
  content: Uint8Array | undefined;
  /** The path whose file mode the new file should keep (itself, or a Move's source); undefined for a new file. */
  modeFrom?: string;
}

/** Every file a patch changes, computed in memory before anything is written. */
export interface PatchPlan {
  /** One entry per hunk, in patch order. */
  changes: PatchFileChange[];
  /** One entry per path whose bytes change, in the order they were first touched. */
  writes: PlannedWrite[];
}

/** Options of {@link planPatch}. */
export interface PlanPatchOptions {
  /** The parsed patch; its paths are the keys given to `readFile`. */
  patch: ParsedPatch;
  /** Returns a file's current bytes, or undefined when it does not exist. Called at most once a path. */
  readFile: (path: string) => Uint8Array | undefined;
}

function countLines(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 0x0a) count += 1;
  return bytes.length > 0 && bytes.at(-1) !== 0x0a ? count + 1 : count;
}

function sameBytes(left: Uint8Array | undefined, right: Uint8Array | undefined): boolean {
  if (left === undefined || right === undefined) return left === right;
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

/**
 * Computes the result of a patch without touching any file (all-or-nothing: the first hunk that
 * cannot be applied throws and nothing is planned). Hunks are applied in order to a virtual
 * copy of the files, so a later hunk sees what an earlier one did. Add File and Move onto an
 * existing file overwrite it (`overwrote: true`); the guard decides whether that is allowed.
 *
 * @returns the per-hunk changes and the final bytes of every path that changes.
 * @throws PatchApplyError `PATCH_APPLY`: a chunk that does not match, an Update or Delete of a
 * missing file, a file that is not UTF-8 text.
 * @example
 * ```ts
 * const plan = planPatch({ patch: parsePatch(text), readFile: (path) => files.get(path) });
 * for (const write of plan.writes) console.log(write.path, write.content?.length ?? 'deleted');
 * ```
 */
export function planPatch(options: PlanPatchOptions): PatchPlan {
  const originals = new Map<string, Uint8Array | undefined>();
  const current = new Map<string, Uint8Array | undefined>();
  const modeFrom = new Map<string, string | undefined>();
  const read = (path: string): Uint8Array | undefined => {
    if (current.has(path)) return current.get(path);
    if (!originals.has(path)) originals.set(path, options.readFile(path));
    return originals.get(path);
  };
  const set = (path: string, content: Uint8Array | undefined, mode: string | undefined): void => {
    read(path);
    current.set(path, content);
    modeFrom.set(path, mode);
  };
  const originalMode = (path: string): string | undefined =>
    modeFrom.has(path) ? modeFrom.get(path) : read(path) === undefined ? undefined : path;

  const files: VirtualFiles = { read, set, originalMode };
  const changes = options.patch.hunks.map((hunk) => {
    if (hunk.type === 'add') return planAdd(hunk, files);
    if (hunk.type === 'delete') return planDelete(hunk, files);
    return planUpdate(hunk, read(hunk.path), files);
  });

  const writes: PlannedWrite[] = [];
  for (const [path, content] of current) {
    if (sameBytes(content, originals.get(path))) continue;
    const write: PlannedWrite = { path, content };
    const mode = modeFrom.get(path);
    if (content !== undefined && mode !== undefined) write.modeFrom = mode;
    writes.push(write);
  }
  return { changes, writes };
}

interface VirtualFiles {
  read: (path: string) => Uint8Array | undefined;
  set: (path: string, content: Uint8Array | undefined, mode: string | undefined) => void;
  originalMode: (path: string) => string | undefined;
}

function planAdd(hunk: AddFileHunk, files: VirtualFiles): PatchFileChange {
  const existed = files.read(hunk.path) !== undefined;
  files.set(hunk.path, encodeAddedLines(hunk.lines), files.originalMode(hunk.path));
  const change: PatchFileChange = {
    action: 'added',
    path: hunk.path,
    linesAdded: hunk.lines.length,
    linesRemoved: 0,
  };
  if (existed) change.overwrote = true;
  return change;
}

function planDelete(hunk: DeleteFileHunk, files: VirtualFiles): PatchFileChange {
  const existing = files.read(hunk.path);
  if (existing === undefined) {
    throw new PatchApplyError(`Cannot delete ${hunk.path}: the file does not exist.`, {
      data: { path: hunk.path },
    });
  }
  files.set(hunk.path, undefined, undefined);
  return { action: 'deleted', path: hunk.path, linesAdded: 0, linesRemoved: countLines(existing) };
}

function planUpdate(
  hunk: UpdateFileHunk,
  existing: Uint8Array | undefined,
  files: VirtualFiles,
): PatchFileChange {
  if (existing === undefined) {
    throw new PatchApplyError(
      `Cannot update ${hunk.path}: the file does not exist. Use '*** Add File: ${hunk.path}' to create it.`,
      { data: { path: hunk.path } },
    );
  }
  const content =
    hunk.chunks.length === 0
      ? existing
      : encodeTextDocument(applyChunks(decodeTextDocument(existing, hunk.path), hunk.chunks, hunk.path));
  const linesAdded = hunk.chunks.reduce((sum, chunk) => sum + chunk.linesAdded, 0);
  const linesRemoved = hunk.chunks.reduce((sum, chunk) => sum + chunk.linesRemoved, 0);
  const mode = files.originalMode(hunk.path);
  if (hunk.movePath === undefined || hunk.movePath === hunk.path) {
    files.set(hunk.path, content, mode);
    return { action: 'updated', path: hunk.path, linesAdded, linesRemoved };
  }
  const targetExisted = files.read(hunk.movePath) !== undefined;
  files.set(hunk.movePath, content, mode);
  files.set(hunk.path, undefined, undefined);
  const change: PatchFileChange = {
    action: 'moved',
    path: hunk.movePath,
    from: hunk.path,
    linesAdded,
    linesRemoved,
  };
  if (targetExisted) change.overwrote = true;
  return change;
}
