/** Why a changed path could not be captured. */
export type UncoveredReason =
  | 'skipped-directory'
  | 'safeturnignore'
  | 'invalid-name'
  | 'unreadable'
  | 'too-large'
  | 'special-file';

/**
 * What a bash call changed and what it could not cover. Nothing is said silently: every change the
 * scan saw is in `created`, `modified` or `deleted`, and everything it could not capture is in
 * `uncovered` with the reason.
 */
export interface CoverageNote {
  turn: string;
  created: string[];
  modified: string[];
  deleted: string[];
  /** Directories the call created (removed again on rewind when empty). */
  createdDirectories: string[];
  uncovered: { path: string; reason: UncoveredReason; detail: string }[];
}

/** One line of text per uncovered path, for the model and for humans. */
export function formatCoverage(note: CoverageNote): string {
  const changed = note.created.length + note.modified.length + note.deleted.length;
  const lines = [
    `[safeturn] ${changed} file change(s) captured (${note.created.length} created, ${note.modified.length} modified, ${note.deleted.length} deleted); rewind restores them.`,
  ];
  for (const item of note.uncovered)
    lines.push(`[safeturn] NOT covered by rewind: ${item.path} (${item.reason}: ${item.detail})`);
  return lines.join('\n');
}
