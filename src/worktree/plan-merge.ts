import { resolveRecordedPath } from '../core/paths.js';
import { type FileEntry, isBinary, readDiskEntry, sameEntry } from './file-entry.js';
import type {
  WorktreeConflictKind,
  WorktreeFileConflict,
  WorktreeMergedFile,
  WorktreeMergeStrategy,
  WorktreeSkippedFile,
} from './merge-types.js';
import { isInWorkspace, toWorkspaceRelative } from './repo-paths.js';
import { mergeText } from './three-way-merge.js';
import type { WorktreeChange } from './worktree-changes.js';

/** One change to make in the user's folder; `path` is workspace-relative, `absolute` checked inside it. */
export type MergeOperation =
  | { kind: 'write'; path: string; absolute: string; bytes: Buffer; permissions: number }
  | { kind: 'symlink'; path: string; absolute: string; target: Buffer }
  | { kind: 'delete'; path: string; absolute: string }
  | { kind: 'chmod'; path: string; absolute: string; permissions: number };

/** What a merge will do, decided before anything is written. */
export interface MergePlan {
  operations: MergeOperation[];
  files: WorktreeMergedFile[];
  conflicts: WorktreeFileConflict[];
  skipped: WorktreeSkippedFile[];
}

/** Options of {@link planMerge}. */
export interface PlanMergeOptions {
  changes: WorktreeChange[];
  workspace: string;
  /** The workspace's place in the repository (`''` or ending in `/`). */
  prefix: string;
  strategy: WorktreeMergeStrategy | undefined;
  /** Label of the worktree side in conflict markers. */
  theirsLabel: string;
}

function withExecutable(permissions: number, executable: boolean): number {
  return executable ? permissions | ((permissions & 0o444) >> 2) : permissions & ~0o111;
}

function defaultPermissions(executable: boolean): number {
  return executable ? 0o755 : 0o644;
}

type Target = { path: string; absolute: string };

function takeTheirs(target: Target, ours: FileEntry, theirs: FileEntry): MergeOperation | undefined {
  if (theirs.kind === 'absent') return { kind: 'delete', ...target };
  if (theirs.kind === 'symlink') return { kind: 'symlink', ...target, target: theirs.target };
  if (theirs.kind !== 'file') return undefined;
  if (ours.kind === 'file') {
    const permissions = withExecutable(
      ours.permissions ?? defaultPermissions(ours.executable),
      theirs.executable,
    );
    if (ours.bytes.equals(theirs.bytes)) return { kind: 'chmod', ...target, permissions };
    return { kind: 'write', ...target, bytes: theirs.bytes, permissions };
  }
  return {
    kind: 'write',
    ...target,
    bytes: theirs.bytes,
    permissions: theirs.permissions ?? defaultPermissions(theirs.executable),
  };
}

function actionOf(operation: MergeOperation): WorktreeMergedFile['action'] {
  if (operation.kind === 'delete') return 'deleted';
  return operation.kind === 'chmod' ? 'mode' : 'written';
}

function conflictKind(ours: FileEntry, theirs: FileEntry, base: FileEntry): WorktreeConflictKind {
  if (ours.kind === 'absent' || theirs.kind === 'absent') return 'delete';
  const binary = [ours, theirs, base].some((entry) => entry.kind === 'file' && isBinary(entry.bytes));
  return binary ? 'binary' : 'type';
}

/**
 * Decides, for every path the worktree changed, what happens in the user's folder: copy when
 * only the worktree changed it, nothing when both sides agree, a three-way text merge when both
 * changed a text file, and a conflict otherwise (binary files are never text-merged).
 *
 * @returns the plan; with `strategy` undefined, `conflicts` non-empty means the merge must be refused.
 */
export async function planMerge(options: PlanMergeOptions): Promise<MergePlan> {
  const plan: MergePlan = { operations: [], files: [], conflicts: [], skipped: [] };
  for (const change of options.changes) {
    const path = toWorkspaceRelative(change.path, options.prefix);
    if (!isInWorkspace(change.path, options.prefix)) {
      plan.skipped.push({ path, reason: 'outside the workspace (elsewhere in the repository)' });
      continue;
    }
    let absolute: string;
    try {
      absolute = await resolveRecordedPath(options.workspace, path);
    } catch (error) {
      plan.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const target = { path, absolute };
    const { base, theirs } = change;
    const ours = await readDiskEntry(absolute);
    if (theirs.kind === 'other' || ours.kind === 'other') {
      const description =
        theirs.kind === 'other'
          ? `the worktree has ${theirs.description}`
          : `your folder has ${ours.kind === 'other' ? ours.description : ''}`;
      plan.skipped.push({ path, reason: `${description} there; only files and symlinks are merged` });
      continue;
    }
    if (sameEntry(ours, theirs)) continue;
    if (sameEntry(ours, base)) {
      const operation = takeTheirs(target, ours, theirs);
      if (operation) {
        plan.operations.push(operation);
        plan.files.push({ path, action: actionOf(operation) });
      }
      continue;
    }
    const textual =
      ours.kind === 'file' &&
      theirs.kind === 'file' &&
      (base.kind === 'absent' || base.kind === 'file') &&
      ![ours.bytes, theirs.bytes, base.kind === 'file' ? base.bytes : Buffer.alloc(0)].some(isBinary);
    if (textual) {
      const baseExecutable = base.kind === 'file' ? base.executable : ours.executable;
      const executable = ours.executable === baseExecutable ? theirs.executable : ours.executable;
      const merged = mergeText({
        ours: ours.bytes,
        base: base.kind === 'file' ? base.bytes : Buffer.alloc(0),
        theirs: theirs.bytes,
        strategy: options.strategy,
        theirsLabel: options.theirsLabel,
      });
      if (merged.hunks.length > 0) plan.conflicts.push({ path, kind: 'content', hunks: merged.hunks });
      if (merged.hunks.length > 0 && options.strategy === undefined) continue;
      const permissions = withExecutable(ours.permissions ?? defaultPermissions(ours.executable), executable);
      if (merged.bytes.equals(ours.bytes) && executable === ours.executable) continue;
      plan.operations.push({ kind: 'write', ...target, bytes: merged.bytes, permissions });
      plan.files.push(
        merged.hunks.length > 0 && options.strategy
          ? { path, action: 'resolved', resolution: options.strategy }
          : { path, action: 'merged' },
      );
      continue;
    }
    plan.conflicts.push({ path, kind: conflictKind(ours, theirs, base), hunks: [] });
    if (options.strategy === 'theirs') {
      const operation = takeTheirs(target, ours, theirs);
      if (operation) {
        plan.operations.push(operation);
        plan.files.push({ path, action: 'resolved', resolution: 'theirs' });
      }
    }
  }
  return plan;
}
