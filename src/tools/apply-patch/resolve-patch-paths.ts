import { type ResolvedPath, resolveInRoot } from '../../core/paths.js';
import { PathError } from '../../errors/path-error.js';
import type { ParsedPatch, PatchHunk } from './patch-types.js';

/** A parsed patch whose paths are root-relative POSIX paths, with the absolute path of each. */
export interface ResolvedPatch {
  patch: ParsedPatch;
  /** Root-relative path -> absolute path on disk. */
  absolute: Map<string, string>;
}

async function resolveOne(root: string, input: string): Promise<ResolvedPath> {
  if (input.split(/[\\/]/).includes('..')) {
    throw new PathError(
      'PATH_OUTSIDE_WORKSPACE',
      `Path ${JSON.stringify(input)} contains '..'; give a plain path inside the workspace.`,
      {
        data: { path: input, workspace: root },
      },
    );
  }
  return resolveInRoot(root, input, { followFinalSymlink: true });
}

/**
 * Checks every path of a patch against `root` (inside it, no `..` segment, no symlink that
 * leads out) and rewrites the patch with root-relative paths. Like the other reference tools
 * (and like `wrapTools()` when it captures checkpoints), every hunk acts on a final symlink's
 * target: a Delete of a link deletes the file it points to.
 *
 * @param root - absolute, realpath'd directory.
 * @param patch - a parsed patch with paths as the model wrote them.
 * @returns the patch with root-relative paths, and the absolute path of each.
 * @throws PathError `PATH_OUTSIDE_WORKSPACE` or `PATH_INVALID` for the first bad path.
 * @example
 * ```ts
 * const { patch } = await resolvePatchPaths('/work/project', parsePatch(text));
 * patchPaths(patch); // ['src/a.ts', 'src/b.ts']
 * ```
 */
export async function resolvePatchPaths(root: string, patch: ParsedPatch): Promise<ResolvedPatch> {
  const absolute = new Map<string, string>();
  const resolve = async (input: string): Promise<string> => {
    const resolved = await resolveOne(root, input);
    absolute.set(resolved.relative, resolved.absolute);
    return resolved.relative;
  };
  const hunks: PatchHunk[] = [];
  for (const hunk of patch.hunks) {
    if (hunk.type === 'update') {
      const resolvedHunk = { ...hunk, path: await resolve(hunk.path) };
      if (hunk.movePath !== undefined) resolvedHunk.movePath = await resolve(hunk.movePath);
      hunks.push(resolvedHunk);
    } else {
      hunks.push({ ...hunk, path: await resolve(hunk.path) });
    }
  }
  return { patch: { ...patch, hunks }, absolute };
}

/**
 * Every path a parsed patch touches, as written in the patch (Add, Update, Delete, and both
 * ends of a Move), without duplicates, in patch order.
 *
 * @returns the paths, as strings from the patch.
 * @example
 * ```ts
 * patchPaths(parsePatch('*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch')); // ['a', 'b']
 * ```
 */
export function patchPaths(patch: ParsedPatch): string[] {
  const paths = new Set<string>();
  for (const hunk of patch.hunks) {
    paths.add(hunk.path);
    if (hunk.type === 'update' && hunk.movePath !== undefined) paths.add(hunk.movePath);
  }
  return [...paths];
}
