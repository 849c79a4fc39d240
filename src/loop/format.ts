import type { RewindResult } from '../checkpoint/checkpoint-store.js';
import type { RollbackPoint } from './session-options.js';

/** One line per rollback point: number, time, label and the files it touched. */
export function formatRollbackPoints(points: RollbackPoint[]): string {
  if (points.length === 0) return 'No rollback points yet.';
  return points
    .map((point) => {
      const files =
        point.files.length === 0
          ? 'no files'
          : point.files.slice(0, 8).join(', ') +
            (point.files.length > 8 ? `, … (${point.files.length} files)` : '');
      return `${String(point.number).padStart(3)}  ${point.startedAt}  ${point.turnId}  ${point.label || '(no label)'}\n     ${files}`;
    })
    .join('\n');
}

/** A restore report as plain text: what was restored, deleted, skipped and what failed. */
export function formatRestoreReport(result: RewindResult, verb = 'Rewound'): string {
  const lines: string[] = [];
  const head = result.dryRun
    ? 'Dry run, nothing written. Would change'
    : `${verb} ${result.turns.length} turn(s) (${result.turns.join(', ') || 'none'})`;
  lines.push(
    `${head}: ${result.restored.length} restored, ${result.deleted.length} deleted, ${result.unchanged.length} unchanged.`,
  );
  for (const path of result.restored) lines.push(`  restored  ${path}`);
  for (const path of result.deleted) lines.push(`  deleted   ${path}`);
  for (const path of result.removedDirectories) lines.push(`  rmdir     ${path}/`);
  for (const path of result.overwritten)
    lines.push(`  overwrote ${path} (it had changed since the agent wrote it; redo brings it back)`);
  for (const skipped of result.skipped)
    lines.push(`  skipped   ${skipped.path}: ${skippedReason(skipped.reason)}`);
  for (const failure of result.failed)
    lines.push(`  FAILED    ${failure.path}: ${failure.code}: ${failure.message}`);
  return lines.join('\n');
}

function skippedReason(reason: string): string {
  switch (reason) {
    case 'root-removed':
      return 'its worktree was merged or discarded since; nothing there to restore';
    case 'too-large':
      return 'over the size cap, so its content was not stored; left as it is';
    case 'unreadable':
      return 'could not be read when it was captured; left as it is';
    case 'not-a-regular-file':
      return 'not a regular file when it was captured; left as it is';
    default:
      return `${reason}; left as it is`;
  }
}
