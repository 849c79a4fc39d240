import type { WorktreeMergeReport } from '../worktree/merge-types.js';
import type { WorktreeInfo } from '../worktree/types.js';

/**
 * One worktree of `safeturn worktree list` as readable lines: name, branch, state, changed files.
 * @example `agent-1  safeturn/agent-1  active, 2 changed file(s), created 2026-11-30T12:00:00.000Z`
 */
export function formatWorktree(item: WorktreeInfo): string {
  const notes = [
    item.exists ? item.state : 'missing on disk',
    ...(item.active ? ['in use by its session'] : []),
    ...(item.ownerAlive ? [] : ['owner gone: merge or discard it']),
    `${item.changedFiles.length} changed file(s)`,
    `created ${item.createdAt}`,
  ];
  const lines = [`${item.name}  ${item.branch}  ${notes.join(', ')}`, `  path: ${item.path}`];
  if (item.changedFiles.length > 0) lines.push(`  changed: ${item.changedFiles.join(', ')}`);
  if (item.problem) lines.push(`  problem: ${item.problem}`);
  return lines.join('\n');
}

/** The report of `safeturn worktree merge` as readable lines: one per changed, conflicting, skipped or failed file. */
export function formatMergeReport(report: WorktreeMergeReport): string {
  const lines = [
    `Merged worktree ${report.name} (${report.branch})${report.strategy ? ` with --strategy ${report.strategy}` : ''}: ${report.files.length} file(s) changed in your folder, uncommitted. \`safeturn rewind 1\` undoes the merge.`,
  ];
  for (const file of report.files)
    lines.push(`  ${file.action.padEnd(8)} ${file.path}${file.resolution ? ` (${file.resolution})` : ''}`);
  for (const conflict of report.conflicts)
    lines.push(
      `  conflict ${conflict.path} (${conflict.kind}${conflict.hunks.length > 0 ? `, ${conflict.hunks.length} hunk(s)` : ''})`,
    );
  for (const skipped of report.skipped) lines.push(`  skipped  ${skipped.path}: ${skipped.reason}`);
  for (const failed of report.failed) lines.push(`  FAILED   ${failed.path}: ${failed.reason}`);
  return lines.join('\n');
}
