import { access } from 'node:fs/promises';
import { applyMerge } from './apply-merge.js';
import type { WorktreeMergeReport } from './merge-types.js';
import { isOwnerAlive } from './owner.js';
import { planMerge } from './plan-merge.js';
import { type ProjectWorktreeDirs, type RegistryEntry, readEntry, writeEntry } from './registry.js';
import type { WorktreeHost, WorktreeMergeOptions } from './types.js';
import { worktreeChanges } from './worktree-changes.js';
import { WorktreeConflictError } from './worktree-conflict-error.js';
import { WorktreeError } from './worktree-error.js';

/**
 * Reads a registered worktree that this session may act on.
 *
 * @throws WorktreeError `WORKTREE_NOT_FOUND`, or `WORKTREE_BUSY` when another live process's session owns it.
 */
export async function requireEntry(
  host: WorktreeHost,
  dirs: ProjectWorktreeDirs,
  name: string,
): Promise<RegistryEntry> {
  const entry = await readEntry(dirs, name);
  if (!entry) {
    throw new WorktreeError(
      'WORKTREE_NOT_FOUND',
      `No worktree named "${name}" for ${host.workspace}; worktree_list shows the existing ones.`,
      {
        data: { name },
      },
    );
  }
  if (entry.sessionId !== host.sessionId && isOwnerAlive(entry.owner)) {
    throw new WorktreeError(
      'WORKTREE_BUSY',
      `Worktree "${name}" belongs to session ${entry.sessionId} of process ${entry.owner.pid}, which is still running.`,
      {
        data: { name, sessionId: entry.sessionId, pid: entry.owner.pid },
      },
    );
  }
  return entry;
}

/**
 * The merge step of the manager (the caller holds the registry lock). See `WorktreeManager.merge`.
 * `beforeApply` runs once the merge is decided (no refusal), right before the first seam call.
 *
 * @throws WorktreeConflictError `WORKTREE_CONFLICT` (nothing written); WorktreeError `WORKTREE_NOT_FOUND`,
 *   `WORKTREE_BUSY`, `WORKTREE_INCOMPLETE`, `WORKTREE`; whatever the host's checkpoint seam throws.
 */
export async function mergeWorktree(
  host: WorktreeHost,
  dirs: ProjectWorktreeDirs,
  options: WorktreeMergeOptions,
  beforeApply: () => void,
): Promise<WorktreeMergeReport> {
  const entry = await requireEntry(host, dirs, options.name);
  if (entry.state === 'creating') {
    throw new WorktreeError(
      'WORKTREE_INCOMPLETE',
      `Worktree "${entry.name}" was never fully created; discard it (or run doctor with repair).`,
      {
        data: { name: entry.name },
      },
    );
  }
  const present = await access(entry.path).then(
    () => true,
    () => false,
  );
  if (!present) {
    throw new WorktreeError(
      'WORKTREE_NOT_FOUND',
      `Worktree "${entry.name}" is registered but its folder ${entry.path} is gone; run doctor with repair to forget it.`,
      {
        data: { name: entry.name, path: entry.path },
      },
    );
  }
  const changes = await worktreeChanges(entry, dirs, options.abortSignal);
  const plan = await planMerge({
    changes,
    workspace: host.workspace,
    prefix: entry.prefix,
    strategy: options.strategy,
    theirsLabel: `worktree ${entry.name}`,
  });
  if (plan.conflicts.length > 0 && options.strategy === undefined)
    throw new WorktreeConflictError(entry.name, plan.conflicts);
  options.abortSignal?.throwIfAborted();
  beforeApply();
  const failed = await applyMerge(host, plan.operations);
  await writeEntry(dirs, { ...entry, state: 'merged', mergedAt: new Date().toISOString() });
  return {
    name: entry.name,
    branch: entry.branch,
    strategy: options.strategy,
    files: plan.files.filter((file) => !failed.some((failure) => failure.path === file.path)),
    conflicts: plan.conflicts,
    skipped: plan.skipped,
    failed,
  };
}
