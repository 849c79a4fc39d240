/**
 * How `merge()` resolves files that both sides changed in conflicting ways. Without one, any
 * conflict refuses the whole merge.
 * - `ours`: keep the user's side of each conflicting hunk (and the user's file on non-text conflicts);
 * - `theirs`: take the worktree's side of each conflicting hunk (and the worktree's file otherwise);
 * - `markers`: write git-style conflict markers into text files; non-text conflicts keep the user's file.
 */
export type WorktreeMergeStrategy = 'ours' | 'theirs' | 'markers';

/** One conflicting region of a text file. Texts are the region's lines, decoded as UTF-8. */
export interface WorktreeConflictHunk {
  /** 1-based line in the user's file where the region starts. */
  oursLine: number;
  /** The user's lines (your folder). */
  ours: string;
  /** The lines at worktree creation. */
  base: string;
  /** The worktree's lines. */
  theirs: string;
}

/**
 * Why a file conflicts: `content` (text edits that overlap; `hunks` lists them), `binary` (a
 * binary file both sides changed), `delete` (one side deleted it, the other changed it),
 * `type` (file vs symlink, or both sides made different symlinks / new files of different kinds).
 */
export type WorktreeConflictKind = 'content' | 'binary' | 'delete' | 'type';

/** A file changed on both sides in ways that conflict. */
export interface WorktreeFileConflict {
  /** Workspace-relative POSIX path. */
  path: string;
  kind: WorktreeConflictKind;
  /** Conflicting hunks of a `content` conflict; empty for the other kinds. */
  hunks: WorktreeConflictHunk[];
}

/**
 * What a merge did to one file of the user's folder:
 * `written` (copied from the worktree, new or changed), `deleted`, `merged` (three-way, cleanly),
 * `mode` (only the executable bit changed), `resolved` (a conflict, settled by the strategy).
 */
export type WorktreeMergeAction = 'written' | 'deleted' | 'merged' | 'mode' | 'resolved';

/** One file a merge changed. */
export interface WorktreeMergedFile {
  /** Workspace-relative POSIX path. */
  path: string;
  action: WorktreeMergeAction;
  /** For `resolved`: the strategy's choice (`markers` on a non-text conflict keeps the user's file: `ours`). */
  resolution?: WorktreeMergeStrategy;
}

/** A file the merge left alone, with why (outside the workspace, a directory or submodule in the way, a failed write). */
export interface WorktreeSkippedFile {
  path: string;
  reason: string;
}

/** The report of a successful `merge()`. Nothing is only logged: every changed, skipped or failed file is here. */
export interface WorktreeMergeReport {
  name: string;
  branch: string;
  strategy: WorktreeMergeStrategy | undefined;
  /** Files written, deleted or chmod'ed in the user's folder, sorted by path. */
  files: WorktreeMergedFile[];
  /** Conflicts met (all resolved by `strategy`; with markers the files hold markers to edit). */
  conflicts: WorktreeFileConflict[];
  /** Files the worktree changed that were not brought back, with the reason. */
  skipped: WorktreeSkippedFile[];
  /** Writes that failed midway (the rest were done), with the error message. */
  failed: WorktreeSkippedFile[];
}
