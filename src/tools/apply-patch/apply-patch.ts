import { readFile, realpath, stat } from 'node:fs/promises';
import { parsePatch } from './parse-patch.js';
import { PatchApplyError } from './patch-apply-error.js';
import { type PatchFileChange, planPatch } from './plan-patch.js';
import { resolvePatchPaths } from './resolve-patch-paths.js';
import { type OriginalFile, writePlan } from './write-plan.js';

/** Options of {@link applyPatch}. */
export interface ApplyPatchOptions {
  /** Absolute directory the patch's relative paths are resolved against (the workspace or a worktree). */
  root: string;
  /** fsync each written file before its rename. @default false */
  fsync?: boolean;
  /** Checked before anything is written; an aborted call writes nothing. */
  abortSignal?: AbortSignal;
}

/** What {@link applyPatch} did. */
export interface ApplyPatchResult {
  /** One entry per hunk, in patch order: added / updated / deleted / moved, with line counts. */
  changes: PatchFileChange[];
  /** Root-relative paths whose bytes were written or that were deleted, in write order. */
  written: string[];
}

async function readOriginal(relative: string, absolute: string): Promise<OriginalFile> {
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { content: undefined };
    throw error;
  }
  if (!stats.isFile()) {
    throw new PatchApplyError(
      `Cannot patch ${relative}: it is ${stats.isDirectory() ? 'a directory' : 'not a regular file'}.`,
      {
        data: { path: relative },
      },
    );
  }
  return { content: new Uint8Array(await readFile(absolute)), mode: stats.mode & 0o7777 };
}

/**
 * Applies a Codex-style patch to the files under `root`, all-or-nothing: parse, check every
 * path, read the files, compute every result in memory, and only then write (atomic renames,
 * new parent directories created). If a write fails midway, the files already written are put
 * back. Does not consult the read-before-edit guard or take checkpoints: `wrapTools()` does
 * both, on the paths `createApplyPatchTool().paths()` declares, before this runs.
 *
 * @param text - the patch (see `parsePatch` for the accepted format).
 * @param options - `root` (absolute), optional `fsync` and `abortSignal`.
 * @returns per-hunk changes with line counts and the paths written.
 * @throws PatchParseError `PATCH_PARSE` (malformed patch, with the line number);
 * PathError `PATH_OUTSIDE_WORKSPACE` / `PATH_INVALID` (a path escapes `root`);
 * PatchApplyError `PATCH_APPLY` (a chunk does not match, Update/Delete of a missing file, a
 * failed write); the abort reason when `abortSignal` is aborted. No file is changed in any of these cases.
 * @example
 * ```ts
 * const result = await applyPatch('*** Begin Patch\n*** Delete File: old.txt\n*** End Patch', { root: '/work/project' });
 * // result.changes = [{ action: 'deleted', path: 'old.txt', linesAdded: 0, linesRemoved: 12 }]
 * ```
 */
export async function applyPatch(text: string, options: ApplyPatchOptions): Promise<ApplyPatchResult> {
  const parsed = parsePatch(text);
  const root = await realpath(options.root);
  const resolved = await resolvePatchPaths(root, parsed);
  const originals = new Map<string, OriginalFile>();
  for (const [relative, absolute] of resolved.absolute)
    originals.set(relative, await readOriginal(relative, absolute));
  options.abortSignal?.throwIfAborted();
  const plan = planPatch({ patch: resolved.patch, readFile: (relative) => originals.get(relative)?.content });
  options.abortSignal?.throwIfAborted();
  const written = await writePlan({
    root,
    writes: plan.writes,
    absolute: resolved.absolute,
    originals,
    ...(options.fsync === undefined ? {} : { fsync: options.fsync }),
  });
  return { changes: plan.changes, written };
}
