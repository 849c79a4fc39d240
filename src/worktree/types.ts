import type { WorktreeMergeReport, WorktreeMergeStrategy } from './merge-types.js';

/**
 * What the worktree layer needs from the session that owns it. The lead's session implements it;
 * tests use a recording host.
 */
export interface WorktreeHost {
  /** The realpath'd user folder (the workspace). */
  workspace: string;
  /** safeturn's home; worktrees live at `<home>/worktrees/<projectId>/<name>`. */
  home: string;
  /** Id of the owning session; part of each branch name `safeturn/<session>/<name>`. */
  sessionId: string;
  /**
   * Checkpoint seam: called before writing or deleting files in `root` (to capture pre-images),
   * with root-relative POSIX paths.
   */
  beforeWrite(root: string, relativePaths: string[]): Promise<void>;
  /** Called after those writes and deletions (to record the post state); also when some failed. */
  afterWrite(root: string, relativePaths: string[]): Promise<void>;
  /** Tells the session which root its tools resolve paths against (a worktree directory, or `undefined` = workspace). */
  setActiveRoot(root: string | undefined): void;
}

/** Options of `create()`. */
export interface WorktreeCreateOptions {
  /** `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`. @default `wt-` and 8 random hex characters */
  name?: string;
  /**
   * Commit-ish to start from. The user's uncommitted changes are carried only when it is (or
   * resolves to) HEAD. @default 'HEAD'
   */
  base?: string;
  /**
   * Extra gitignore-syntax patterns of ignored files to carry (e.g. `.env`), added to
   * `worktree.include` of `safeturn.config.json`. @default []
   */
  include?: string[];
  abortSignal?: AbortSignal;
}

/** What `create()` made. */
export interface WorktreeCreated {
  name: string;
  branch: string;
  /** The worktree's directory (the repository root's copy). */
  path: string;
  /** Where the session's tools now resolve paths: the workspace's counterpart inside the worktree. */
  root: string;
  /** The commit the branch started from. */
  baseCommit: string;
  /** Workspace-relative paths of uncommitted changes carried (modified, deleted, untracked, included). */
  carried: string[];
  /** Why nothing was carried, when the base is not HEAD. */
  carryNote?: string;
}

/** Options of `merge()`. */
export interface WorktreeMergeOptions {
  name: string;
  /** How to settle conflicts. @default undefined: refuse the whole merge when any conflict exists */
  strategy?: WorktreeMergeStrategy;
  abortSignal?: AbortSignal;
}

/** Options of `discard()`. */
export interface WorktreeDiscardOptions {
  name: string;
  abortSignal?: AbortSignal;
}

/** What `discard()` removed. */
export interface WorktreeDiscarded {
  name: string;
  branch: string;
  path: string;
  /** The branch's last commit before it was deleted (to recover it with `git branch <name> <sha>` until gc). */
  branchCommit: string | undefined;
}

/** Life stage of a registered worktree. */
export type WorktreeState = 'creating' | 'active' | 'merged';

/** One row of `list()`. */
export interface WorktreeInfo {
  name: string;
  branch: string;
  path: string;
  /** The commit the branch started from. */
  base: string;
  /** ISO 8601 time of creation. */
  createdAt: string;
  state: WorktreeState;
  sessionId: string;
  ownerPid: number;
  /** False when the owning process is gone (crashed or ended): anyone may merge or discard it. */
  ownerAlive: boolean;
  /** True when this is the root the session's tools currently use. */
  active: boolean;
  /** Whether the directory still exists. */
  exists: boolean;
  /** Workspace-relative paths the worktree changed since creation (empty when it does not exist). */
  changedFiles: string[];
  /** Why `changedFiles` could not be computed (a broken worktree), if so. */
  problem?: string;
}

/** Options of `doctor()`. */
export interface WorktreeDoctorOptions {
  /** Repair what is found: remove incomplete and unregistered worktrees, forget missing ones. @default false */
  repair?: boolean;
  abortSignal?: AbortSignal;
}

/**
 * A problem `doctor()` found:
 * `missing` (registered, but the directory is gone), `unregistered` (a directory or git worktree
 * entry safeturn does not know), `incomplete` (creation was interrupted), `owner-dead` (the owning
 * process died: still listed, merge or discard it; never removed by repair).
 */
export interface WorktreeDoctorFinding {
  kind: 'missing' | 'unregistered' | 'incomplete' | 'owner-dead';
  name: string;
  path: string;
  branch: string | undefined;
  detail: string;
  /** True when `repair` fixed it. */
  repaired: boolean;
}

/** The worktree layer of one session: see {@link createWorktreeManager}. */
export interface WorktreeManager {
  /** Creates a worktree, carries the dirty tree, locks it and makes it the session's active root. */
  create(options?: WorktreeCreateOptions): Promise<WorktreeCreated>;
  /** Brings the worktree's changes back into the workspace as uncommitted changes. */
  merge(options: WorktreeMergeOptions): Promise<WorktreeMergeReport>;
  /** Unlocks and removes the worktree, prunes it and force-deletes its branch. */
  discard(options: WorktreeDiscardOptions): Promise<WorktreeDiscarded>;
  /** Every registered worktree of this workspace (all sessions). */
  list(options?: { abortSignal?: AbortSignal }): Promise<WorktreeInfo[]>;
  /** Finds (and with `repair`, fixes) orphaned worktrees. */
  doctor(options?: WorktreeDoctorOptions): Promise<WorktreeDoctorFinding[]>;
  /** The name of the active worktree of this session, if any. */
  activeName(): string | undefined;
}
