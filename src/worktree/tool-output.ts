import type { WorktreeFileConflict, WorktreeMergeReport } from './merge-types.js';
import type { WorktreeCreated, WorktreeInfo } from './types.js';

const maxListed = 50;
const maxHunkChars = 2000;

function listed(paths: string[]): string {
  const shown = paths.slice(0, maxListed).map((file) => `  ${JSON.stringify(file).slice(1, -1)}`);
  if (paths.length > maxListed) shown.push(`  ... and ${paths.length - maxListed} more`);
  return shown.join('\n');
}

function clip(text: string): string {
  return text.length > maxHunkChars
    ? `${text.slice(0, maxHunkChars)}\n[... ${text.length - maxHunkChars} more characters]`
    : text;
}

/** Text a model reads after `worktree_create`. */
export function describeCreated(created: WorktreeCreated): string {
  const lines = [
    `Created worktree "${created.name}" on branch ${created.branch} from ${created.baseCommit.slice(0, 12)}.`,
    `Your file tools now work inside the worktree (${created.root}); the user's folder is untouched until you merge.`,
  ];
  if (created.carried.length > 0)
    lines.push(
      `Carried the user's ${created.carried.length} uncommitted change(s):\n${listed(created.carried)}`,
    );
  else lines.push(created.carryNote ?? 'The user had no uncommitted changes to carry.');
  lines.push(
    `When done: worktree_merge {"name":"${created.name}"} to bring the changes back, or worktree_discard to drop them.`,
  );
  return lines.join('\n');
}

function describeConflict(conflict: WorktreeFileConflict): string {
  if (conflict.kind !== 'content') {
    const why = {
      binary: 'a binary file changed on both sides',
      delete: 'deleted on one side, changed on the other',
      type: 'changed into different kinds of entries (file / symlink) on the two sides',
    }[conflict.kind];
    return `${conflict.path}: ${why}`;
  }
  const hunks = conflict.hunks.map(
    (hunk) =>
      `  at line ${hunk.oursLine}:\n  --- user's folder:\n${clip(hunk.ours)}\n  --- at creation:\n${clip(hunk.base)}\n  --- worktree:\n${clip(hunk.theirs)}`,
  );
  return `${conflict.path}: ${conflict.hunks.length} conflicting hunk(s)\n${hunks.join('\n')}`;
}

/** Text a model reads when a merge is refused for conflicts. */
export function describeConflicts(name: string, conflicts: WorktreeFileConflict[]): string {
  return [
    `Merge of worktree "${name}" refused, nothing was written: ${conflicts.length} file(s) conflict with the user's own changes.`,
    ...conflicts.map(describeConflict),
    `Resolve it: edit the worktree so it no longer conflicts and merge again, or merge with strategy "markers" (conflict markers in text files for the user), "ours" (keep the user's side) or "theirs" (take the worktree's side).`,
  ].join('\n');
}

/** Text a model reads after a successful `worktree_merge`. */
export function describeMerged(report: WorktreeMergeReport): string {
  const lines = [
    `Merged worktree "${report.name}" into the user's folder as uncommitted changes (${report.files.length} file(s)).`,
  ];
  if (report.files.length > 0) {
    lines.push(
      report.files
        .slice(0, maxListed)
        .map((file) => `  ${file.action}${file.resolution ? ` (${file.resolution})` : ''}: ${file.path}`)
        .join('\n'),
    );
    if (report.files.length > maxListed) lines.push(`  ... and ${report.files.length - maxListed} more`);
  }
  if (report.conflicts.length > 0) {
    const markers = report.strategy === 'markers';
    lines.push(
      `${report.conflicts.length} conflict(s) settled with strategy "${report.strategy}"${markers ? " (text files now hold <<<<<<< markers; binary, deleted or retyped files kept the user's version)" : ''}:\n${listed(report.conflicts.map((conflict) => `${conflict.path} (${conflict.kind})`))}`,
    );
  }
  for (const skipped of report.skipped) lines.push(`  not merged: ${skipped.path}: ${skipped.reason}`);
  for (const failure of report.failed) lines.push(`  FAILED to write: ${failure.path}: ${failure.reason}`);
  lines.push(
    "Your tools work in the user's folder again. The worktree still exists: worktree_discard removes it.",
  );
  return lines.join('\n');
}

/** Text a model reads for `worktree_list`. */
export function describeList(worktrees: WorktreeInfo[]): string {
  if (worktrees.length === 0) return 'No worktrees.';
  return worktrees
    .map((info) => {
      const flags = [
        info.state,
        info.active ? 'your tools work here' : undefined,
        info.exists ? undefined : 'folder missing',
        info.ownerAlive ? undefined : `owner pid ${info.ownerPid} gone`,
      ].filter(Boolean);
      const changed = info.changedFiles.length > 0 ? `\n${listed(info.changedFiles)}` : '';
      return `${info.name} [${flags.join(', ')}] branch ${info.branch}, base ${info.base.slice(0, 12)}, created ${info.createdAt}, ${info.changedFiles.length} changed file(s)${changed}${info.problem ? `\n  problem: ${info.problem}` : ''}`;
    })
    .join('\n');
}
