import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE_NAME, HOME_PROTECTED_FILES } from './default-deny-read.js';
import { findGitLocations, type GitLocations, listHookFiles } from './git-locations.js';
import { isSameOrInside } from './path-utilities.js';
import type { SandboxPolicy } from './policy-schema.js';

/** A path kept read-only inside a writable root. */
export interface ProtectedEntry {
  /** Absolute path (realpath'd when it exists). */
  path: string;
  kind: 'file' | 'directory';
  /** False: bwrap creates an empty mount stub on the host, which cleanup removes. */
  exists: boolean;
  /** For a missing entry: its topmost missing ancestor (or itself), where stub removal stops. */
  firstMissing?: string;
  /** Why it is protected: 'git', 'hooks', 'home-rc', 'safeturn-home', 'config', 'read-only-path'. */
  reason: string;
}

/** A deny-read path that exists and is masked. */
export interface DenyEntry {
  path: string;
  kind: 'file' | 'directory';
}

/** Everything a platform backend needs to build its sandbox, computed from a policy and the disk. */
export interface SandboxPlan {
  /** Writable roots in bind order (outer first): the workspace and writableRoots; empty in read-only. */
  writable: string[];
  protectedEntries: ProtectedEntry[];
  denyEntries: DenyEntry[];
  /**
   * Protected files that did not exist: removed after the run if the command created them (no stub,
   * so `git status` stays clean): the workspace's safeturn.config.json; with `protectGit: 'hooks'`,
   * `commondir` and `config.worktree` in every git directory.
   */
  removeIfCreated: string[];
  /** Hook files present before the run, to find new ones afterwards. */
  hookFilesBefore: string[];
  git: GitLocations;
}

async function kindOf(target: string): Promise<'file' | 'directory' | undefined> {
  try {
    return (await stat(target)).isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

async function firstMissingAncestor(target: string): Promise<string> {
  let current = target;
  for (;;) {
    const parent = path.dirname(current);
    if (parent === current) return current;
    try {
      await lstat(parent);
      return current;
    } catch {
      current = parent;
    }
  }
}

async function makeEntry(
  target: string,
  fallbackKind: 'file' | 'directory',
  reason: string,
): Promise<ProtectedEntry> {
  const kind = await kindOf(target);
  if (kind === undefined) {
    return {
      path: target,
      kind: fallbackKind,
      exists: false,
      firstMissing: await firstMissingAncestor(target),
      reason,
    };
  }
  return { path: await realpath(target), kind, exists: true, reason };
}

/**
 * Computes the mounts of one sandboxed run: writable roots, the protected paths inside them
 * (every `.git` at any depth or, with `protectGit: 'hooks'`, its hooks/ and config; `.git` files
 * and their gitdir targets; `core.hooksPath`; HOME rc files and `~/.gitconfig` when HOME is inside
 * a writable root; safeturn's home; the workspace's config file; readOnlyPaths) and the existing
 * deny-read paths.
 *
 * @param policy - a resolved policy (not danger-full-access).
 * @returns the plan; nothing is written.
 */
export async function buildSandboxPlan(policy: SandboxPolicy): Promise<SandboxPlan> {
  const writable =
    policy.mode === 'workspace-write'
      ? [policy.workspace, ...policy.writableRoots.filter((root) => root !== policy.workspace)].sort(
          (left, right) => left.length - right.length,
        )
      : [];
  const git = await findGitLocations(writable, policy.homeDirectory);
  const candidates: ProtectedEntry[] = [];
  const gitRedirects: string[] = [];
  for (const file of git.gitFiles) candidates.push(await makeEntry(file, 'file', 'git'));
  for (const gitDirectory of git.gitDirectories) {
    if (policy.protectGit === true) candidates.push(await makeEntry(gitDirectory, 'directory', 'git'));
    // hooks/ and config also in the default mode: when they are symlinks (hooks -> ../.githooks)
    // their targets lie outside the git directory; inside it they are dropped as covered below.
    candidates.push(await makeEntry(path.join(gitDirectory, 'hooks'), 'directory', 'hooks'));
    candidates.push(await makeEntry(path.join(gitDirectory, 'config'), 'file', 'git'));
    if (policy.protectGit === 'hooks') {
      // Files that redirect git to other config or another common dir: read-only when present,
      // removed after the run when the command created them.
      for (const name of ['config.worktree', 'commondir']) {
        const redirect = await makeEntry(path.join(gitDirectory, name), 'file', 'git');
        if (redirect.exists) candidates.push(redirect);
        else gitRedirects.push(redirect.path);
      }
    }
  }
  for (const hooksPath of git.hooksPaths) candidates.push(await makeEntry(hooksPath, 'directory', 'hooks'));
  if (writable.some((root) => isSameOrInside(root, policy.homeDirectory))) {
    const homeFiles = HOME_PROTECTED_FILES.map((name) => path.join(policy.homeDirectory, name));
    candidates.push(...(await Promise.all(homeFiles.map((file) => makeEntry(file, 'file', 'home-rc')))));
  }
  candidates.push(await makeEntry(policy.safeturnHome, 'directory', 'safeturn-home'));
  const configEntry = await makeEntry(path.join(policy.workspace, CONFIG_FILE_NAME), 'file', 'config');
  const removeIfCreated: string[] = writable.length > 0 ? [...gitRedirects] : [];
  if (configEntry.exists) candidates.push(configEntry);
  else if (policy.mode === 'workspace-write') removeIfCreated.push(configEntry.path);
  for (const readOnly of policy.readOnlyPaths)
    candidates.push(await makeEntry(readOnly, 'file', 'read-only-path'));

  // Keep entries inside a writable root, drop duplicates and entries inside an already protected directory.
  const protectedEntries: ProtectedEntry[] = [];
  const sorted = candidates
    .filter((entry) => writable.some((root) => isSameOrInside(root, entry.path)))
    .sort((left, right) => left.path.length - right.path.length || left.path.localeCompare(right.path));
  for (const entry of sorted) {
    const covered = protectedEntries.some(
      (kept) =>
        kept.path === entry.path ||
        (kept.kind === 'directory' && kept.exists && isSameOrInside(kept.path, entry.path)),
    );
    if (!covered) protectedEntries.push(entry);
  }

  const denyKinds = await Promise.all(policy.denyRead.map((denied) => kindOf(denied)));
  const denyEntries: DenyEntry[] = [];
  for (const [index, denied] of policy.denyRead.entries()) {
    const kind = denyKinds[index];
    if (kind !== undefined) denyEntries.push({ path: await realpath(denied), kind });
  }
  return {
    writable,
    protectedEntries,
    denyEntries,
    removeIfCreated,
    hookFilesBefore: await listHookFiles(git),
    git,
  };
}
