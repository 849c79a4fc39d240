import { randomBytes } from 'node:crypto';
import { access, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { carryDirtyTree, commitCarriedState } from './carry-dirty-tree.js';
import { runGit } from './git.js';
import { includeMatcher, readIncludePatterns } from './include-config.js';
import { currentOwner, lockReason } from './owner.js';
import {
  type ProjectWorktreeDirs,
  type RegistryEntry,
  readEntry,
  removeEntry,
  worktreeNameSchema,
  writeEntry,
} from './registry.js';
import { joinRepoPath, toWorkspaceRelative } from './repo-paths.js';
import { branchCommit, locateRepository, resolveCommit } from './repository.js';
import type { WorktreeCreated, WorktreeCreateOptions, WorktreeHost } from './types.js';
import { WorktreeError } from './worktree-error.js';

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function validBranch(cwd: string, branch: string): Promise<boolean> {
  return (
    (await runGit({ cwd, args: ['check-ref-format', '--branch', branch], allowFailure: true })).exitCode === 0
  );
}

/**
 * The create step of the manager (the caller holds the registry lock). See `WorktreeManager.create`.
 *
 * @throws WorktreeError `WORKTREE_NEEDS_GIT`, `WORKTREE_INVALID_NAME`, `WORKTREE_EXISTS`, `WORKTREE`.
 */
export async function createWorktree(
  host: WorktreeHost,
  dirs: ProjectWorktreeDirs,
  options: WorktreeCreateOptions,
): Promise<{ created: WorktreeCreated; entry: RegistryEntry }> {
  const signal = options.abortSignal ? { abortSignal: options.abortSignal } : {};
  const repository = await locateRepository(host.workspace, options.abortSignal);
  const name = options.name ?? `wt-${randomBytes(4).toString('hex')}`;
  const parsedName = worktreeNameSchema.safeParse(name);
  const branch = `safeturn/${host.sessionId}/${name}`;
  if (!parsedName.success || !(await validBranch(repository.root, branch))) {
    throw new WorktreeError(
      'WORKTREE_INVALID_NAME',
      `Invalid worktree name ${JSON.stringify(name)}: use letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit); the branch ${branch} must be a valid git branch name.`,
      { data: { name, branch } },
    );
  }
  const head = await resolveCommit(repository.root, 'HEAD', options.abortSignal);
  if (head === undefined) {
    throw new WorktreeError(
      'WORKTREE_NEEDS_GIT',
      `Worktrees need a git repository with at least one commit; ${repository.root} has none yet.`,
      {
        data: { repository: repository.root },
      },
    );
  }
  const baseCommit = await resolveCommit(repository.root, options.base ?? 'HEAD', options.abortSignal);
  if (baseCommit === undefined) {
    throw new WorktreeError(
      'WORKTREE',
      `Base ${JSON.stringify(options.base)} names no commit in ${repository.root}.`,
      {
        data: { base: options.base },
      },
    );
  }
  const worktreePath = path.join(await realpath(dirs.root), name);
  const relativeToRepo = path.relative(repository.root, worktreePath);
  if (!relativeToRepo.startsWith('..') && !path.isAbsolute(relativeToRepo)) {
    throw new WorktreeError(
      'WORKTREE',
      `safeturn's home ${host.home} is inside the repository ${repository.root}; worktrees must live outside it. Set SAFETURN_HOME elsewhere.`,
      {
        data: { home: host.home, repository: repository.root },
      },
    );
  }
  if (
    (await readEntry(dirs, name)) ||
    (await exists(worktreePath)) ||
    (await branchCommit(repository.root, branch))
  ) {
    throw new WorktreeError(
      'WORKTREE_EXISTS',
      `A worktree named "${name}" (or its folder ${worktreePath}, or branch ${branch}) already exists; pick another name or discard it first.`,
      {
        data: { name, path: worktreePath, branch },
      },
    );
  }
  const owner = currentOwner();
  const entry: RegistryEntry = {
    version: 1,
    name,
    branch,
    sessionId: host.sessionId,
    state: 'creating',
    owner,
    workspace: host.workspace,
    repoRoot: repository.root,
    prefix: repository.prefix,
    path: worktreePath,
    baseCommit,
    createdAt: new Date().toISOString(),
    carried: [],
    included: {},
    includePatterns: [],
  };
  // Registered before anything exists, so a crash at any later point is found by doctor().
  await writeEntry(dirs, entry);
  try {
    await runGit({
      cwd: repository.root,
      args: [
        'worktree',
        'add',
        '--quiet',
        '--lock',
        '--reason',
        lockReason(owner),
        '-b',
        branch,
        worktreePath,
        baseCommit,
      ],
      ...signal,
    });
    let carryNote: string | undefined;
    let carried: Awaited<ReturnType<typeof carryDirtyTree>> = { carried: [], included: {}, staged: [] };
    const patterns = [...(await readIncludePatterns(host.workspace)), ...(options.include ?? [])];
    if (baseCommit === head) {
      carried = await carryDirtyTree({
        repoRoot: repository.root,
        worktreePath,
        isIncluded: includeMatcher(patterns, repository.prefix),
        hasIncludes: patterns.length > 0,
        dirs,
        name,
        ...signal,
      });
    } else {
      carryNote = `Uncommitted changes were not carried: base ${options.base} is not HEAD.`;
    }
    const creationCommit = await commitCarriedState({
      worktreePath,
      branch,
      baseCommit,
      paths: carried.staged,
      message: `safeturn: state of ${host.workspace} at worktree creation`,
      ...signal,
    });
    const active: RegistryEntry = {
      ...entry,
      state: 'active',
      creationCommit,
      carried: carried.carried,
      included: carried.included,
      includePatterns: patterns,
    };
    await writeEntry(dirs, active);
    const root =
      repository.prefix === '' ? worktreePath : joinRepoPath(worktreePath, repository.prefix.slice(0, -1));
    const created: WorktreeCreated = {
      name,
      branch,
      path: worktreePath,
      root,
      baseCommit,
      carried: carried.carried.map((relative) => toWorkspaceRelative(relative, repository.prefix)),
      ...(carryNote ? { carryNote } : {}),
    };
    return { created, entry: active };
  } catch (error) {
    await runGit({
      cwd: repository.root,
      args: ['worktree', 'remove', '--force', '--force', worktreePath],
      allowFailure: true,
    });
    await rm(worktreePath, { recursive: true, force: true });
    await runGit({ cwd: repository.root, args: ['worktree', 'prune'], allowFailure: true });
    await runGit({ cwd: repository.root, args: ['branch', '-D', branch], allowFailure: true });
    await removeEntry(dirs, name);
    throw error;
  }
}
