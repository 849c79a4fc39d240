import type { Stats } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE_NAME, HOME_PROTECTED_FILES } from './default-deny-read.js';
import { isSameOrInside, realpathOfDeepestExisting } from './path-utilities.js';
import type { SandboxPolicy } from './policy-schema.js';

/** Why {@link checkWritePath} refused a path. */
export type WritePathRefusal =
  | 'invalid-path'
  | 'read-only-mode'
  | 'outside-writable-roots'
  | 'protected-git'
  | 'protected-path'
  | 'deny-read';

/** The verdict of {@link checkWritePath}. */
export type WritePathVerdict =
  | { allowed: true /** The path actually written (symlinks followed). */; path: string }
  | {
      allowed: false;
      reason: WritePathRefusal /** The path actually written (symlinks followed). */;
      path: string;
      message: string;
    };

async function followSymlinks(target: string): Promise<string> {
  let current = path.join(await realpathOfDeepestExisting(path.dirname(target)), path.basename(target));
  for (let hops = 0; hops < 40; hops += 1) {
    let stats: Stats;
    try {
      stats = await lstat(current);
    } catch {
      return current;
    }
    if (!stats.isSymbolicLink()) return current;
    const next = path.resolve(path.dirname(current), await readlink(current));
    current = path.join(await realpathOfDeepestExisting(path.dirname(next)), path.basename(next));
  }
  return current;
}

function gitRefusal(policy: SandboxPolicy, relativeSegments: string[]): boolean {
  const gitIndex = relativeSegments.indexOf('.git');
  if (gitIndex === -1) return false;
  if (policy.protectGit === true || gitIndex === relativeSegments.length - 1) return true;
  const inside = relativeSegments.slice(gitIndex + 1);
  return (
    inside.includes('hooks') ||
    ['config', 'config.worktree', 'commondir'].includes(inside[inside.length - 1]!)
  );
}

/**
 * Decides whether the write/edit/apply_patch tools may write `absolutePath` under `policy`,
 * with the same rules bash gets in the sandbox: only inside the workspace and writable roots
 * (symlinks followed, so a link planted in the workspace cannot lead outside), never into a
 * `.git` (or with `protectGit: 'hooks'` its hooks/, config, config.worktree and commondir), HOME rc files and `~/.gitconfig`,
 * safeturn's home, the workspace's safeturn.config.json, readOnlyPaths or denyRead paths.
 * Does not scan `core.hooksPath` (the sandbox does).
 *
 * @param policy - a resolved policy.
 * @param absolutePath - the path a tool wants to write.
 * @returns a {@link WritePathVerdict}; a refusal carries a message for the model.
 * @example
 * ```ts
 * const verdict = await checkWritePath(policy, '/work/project/.git/hooks/pre-commit'); // { allowed: false, reason: 'protected-git', ... }
 * ```
 */
export async function checkWritePath(policy: SandboxPolicy, absolutePath: string): Promise<WritePathVerdict> {
  if (!path.isAbsolute(absolutePath) || absolutePath.includes('\0')) {
    return {
      allowed: false,
      reason: 'invalid-path',
      path: absolutePath,
      message: `${JSON.stringify(absolutePath)} is not an absolute path.`,
    };
  }
  if (policy.mode === 'danger-full-access') return { allowed: true, path: path.resolve(absolutePath) };
  const target = await followSymlinks(path.resolve(absolutePath));
  const refuse = (reason: WritePathRefusal, message: string): WritePathVerdict => ({
    allowed: false,
    reason,
    path: target,
    message,
  });
  if (policy.mode === 'read-only')
    return refuse('read-only-mode', `The sandbox is read-only: ${target} cannot be written.`);
  const root = [policy.workspace, ...policy.writableRoots].find((candidate) =>
    isSameOrInside(candidate, target),
  );
  if (root === undefined) {
    return refuse(
      'outside-writable-roots',
      `${target} is outside the workspace and the writable roots; the sandbox policy does not allow writing there.`,
    );
  }
  if (gitRefusal(policy, path.relative(root, target).split(path.sep))) {
    return refuse(
      'protected-git',
      `${target} is inside a .git directory, which the sandbox keeps read-only (protectGit: ${String(policy.protectGit)}).`,
    );
  }
  const protectedFiles = [
    path.join(policy.workspace, CONFIG_FILE_NAME),
    ...(isSameOrInside(root, policy.homeDirectory)
      ? HOME_PROTECTED_FILES.map((name) => path.join(policy.homeDirectory, name))
      : []),
  ];
  if (
    protectedFiles.includes(target) ||
    [policy.safeturnHome, ...policy.readOnlyPaths].some((entry) => isSameOrInside(entry, target))
  ) {
    return refuse('protected-path', `${target} is protected by the sandbox policy and stays read-only.`);
  }
  if (policy.denyRead.some((entry) => isSameOrInside(entry, target))) {
    return refuse('deny-read', `${target} is inside a denyRead path of the sandbox policy.`);
  }
  return { allowed: true, path: target };
}
