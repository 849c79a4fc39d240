import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { PathError } from '../errors/path-error.js';

/** A path checked to be inside a root directory. */
export interface ResolvedPath {
  /** Absolute path, with every existing parent directory realpath'd. */
  absolute: string;
  /** POSIX-style path relative to the root, never empty, never starting with `..`. */
  relative: string;
}

/** Options of {@link resolveInRoot}. */
export interface ResolveInRootOptions {
  /**
   * When the last component is a symlink, resolve it and check where it points
   * (read and write tools act on the target). When false the link itself is the path
   * (capture and restore never follow links). @default false
   */
  followFinalSymlink?: boolean;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative !== '' &&
    !relative.startsWith(`..${path.sep}`) &&
    relative !== '..' &&
    !path.isAbsolute(relative)
  );
}

/**
 * The realpath of `target` when it exists; otherwise the realpath of its deepest existing
 * ancestor with the missing components appended.
 */
export async function realpathOfDeepestExisting(target: string): Promise<string> {
  let existing = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = path.dirname(existing);
      if (parent === existing) return target;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}

/**
 * Checks that a relative path read back from disk (a journal, a stat cache) is in normal form:
 * POSIX separators, no `.`/`..` segments, not absolute, no NUL.
 *
 * @throws PathError `PATH_OUTSIDE_WORKSPACE` or `PATH_INVALID`.
 */
export function assertNormalRelative(relative: string): void {
  if (relative === '' || relative.includes('\0')) {
    throw new PathError('PATH_INVALID', `Invalid path ${JSON.stringify(relative)}.`, {
      data: { path: relative },
    });
  }
  const segments = relative.split('/');
  if (
    path.posix.isAbsolute(relative) ||
    segments.some((segment) => segment === '..' || segment === '.' || segment === '')
  ) {
    throw new PathError(
      'PATH_OUTSIDE_WORKSPACE',
      `Path ${JSON.stringify(relative)} is not a plain path inside the workspace.`,
      {
        data: { path: relative },
      },
    );
  }
}

/**
 * Resolves a path given by a model or a host (relative to `root`, or absolute inside it) and
 * refuses it when it escapes `root`: `..` segments that leave it, an absolute path elsewhere,
 * or a parent directory (or, with `followFinalSymlink`, the file itself) that is a symlink
 * resolving outside. Rule 4 of DESIGN.md.
 *
 * @param root - absolute, realpath'd root (the workspace or a worktree).
 * @param input - the path as given.
 * @returns the checked absolute path and its root-relative POSIX form.
 * @throws PathError `PATH_INVALID` (empty, NUL byte, the root itself) or `PATH_OUTSIDE_WORKSPACE`.
 */
export async function resolveInRoot(
  root: string,
  input: string,
  options: ResolveInRootOptions = {},
): Promise<ResolvedPath> {
  if (typeof input !== 'string' || input.trim() === '' || input.includes('\0')) {
    throw new PathError(
      'PATH_INVALID',
      `Invalid path ${JSON.stringify(input)}: give a file path inside the workspace.`,
      {
        data: { path: input },
      },
    );
  }
  const lexical = path.resolve(root, input);
  const parent = await realpathOfDeepestExisting(path.dirname(lexical));
  let absolute = path.join(parent, path.basename(lexical));
  if (!isInside(root, absolute)) {
    throw new PathError(
      'PATH_OUTSIDE_WORKSPACE',
      `Path ${JSON.stringify(input)} is outside the workspace ${root}; only files inside it can be used.`,
      {
        data: { path: input, workspace: root },
      },
    );
  }
  if (options.followFinalSymlink) {
    const seen = new Set<string>();
    for (;;) {
      let stats: import('node:fs').Stats;
      try {
        stats = await lstat(absolute);
      } catch {
        break;
      }
      if (!stats.isSymbolicLink()) break;
      if (seen.has(absolute) || seen.size > 40) {
        throw new PathError('PATH_INVALID', `Path ${JSON.stringify(input)} is a symlink loop.`, {
          data: { path: input },
        });
      }
      seen.add(absolute);
      const target = path.resolve(path.dirname(absolute), await readlink(absolute));
      absolute = path.join(await realpathOfDeepestExisting(path.dirname(target)), path.basename(target));
      if (!isInside(root, absolute)) {
        throw new PathError(
          'PATH_OUTSIDE_WORKSPACE',
          `Path ${JSON.stringify(input)} is a symlink to ${target}, outside the workspace ${root}.`,
          {
            data: { path: input, target, workspace: root },
          },
        );
      }
    }
  }
  return { absolute, relative: path.relative(root, absolute).split(path.sep).join('/') };
}

/**
 * Joins a checked root-relative path onto `root` and verifies again, on disk, that no parent
 * directory is a symlink out of `root` (the journal is just a file: rule 4 at restore time).
 *
 * @throws PathError `PATH_OUTSIDE_WORKSPACE` or `PATH_INVALID`.
 */
export async function resolveRecordedPath(root: string, relative: string): Promise<string> {
  assertNormalRelative(relative);
  return (await resolveInRoot(root, relative)).absolute;
}

/** True when `candidate` is `directory` or inside it (both absolute). */
export function isSameOrInside(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

/**
 * Refuses a path inside safeturn's own home (its store) when the root is not itself inside the
 * home: when the workspace contains the home (an agent started in `~`), the store must never be
 * captured, restored or written through the tools. A worktree root (under `<home>/worktrees/`) is
 * fine for paths inside it.
 *
 * @throws PathError `PATH_INVALID`.
 */
export function assertNotInHome(home: string, root: string, absolute: string, display: string): void {
  if (isSameOrInside(home, absolute) && !isSameOrInside(home, root)) {
    throw new PathError(
      'PATH_INVALID',
      `${display} is inside safeturn's own store (${home}); it is never read, written or restored through the tools.`,
      {
        data: { path: display, home },
      },
    );
  }
}
