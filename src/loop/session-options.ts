import { z } from 'zod';
import type { SandboxPolicyInput } from '../sandbox/policy-schema.js';

/** Session ids: `[A-Za-z0-9._-]{1,200}`, not starting with `_` (DESIGN.md). */
export const sessionIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9.-][A-Za-z0-9._-]{0,199}$/,
    'a session id is 1-200 of [A-Za-z0-9._-], not starting with _',
  )
  .refine((id) => id !== '.' && id !== '..', 'a session id cannot be . or ..');

/** Options of `createSession()`. */
export interface CreateSessionOptions {
  /** The project directory the agent works in; realpath'd. Must exist. */
  workspace: string;
  /** Resume this session when it exists on disk, else start it. @default a new time-based id */
  sessionId?: string;
  /** safeturn's data directory. @default $SAFETURN_HOME, else ~/.safeturn */
  home?: string;
  /** Files larger than this (bytes) are recorded as skipped, not stored. @default 8 MiB */
  sizeCapBytes?: number;
  /** Retention: how many turns stay rollback points; older ones are pruned. @default 100 */
  maxTurns?: number;
  /**
   * Directory names bash staging never scans, at any depth (`.git` is always skipped).
   * @default node_modules, .git, dist, build, target, .next, .venv, __pycache__, .cache
   */
  skipDirectories?: string[];
  /**
   * Keep inotify watches on the workspace's directories between bash calls, so a call costs
   * O(changed paths) instead of a full stat scan (Linux only; elsewhere every call scans). @default true
   */
  watchFiles?: boolean;
  /**
   * Run `bash` tools under the sandbox with this policy (merged over the `sandbox` section of the
   * config file). `true`: the config file's policy, else the defaults (workspace-write, network off).
   * `false`: no sandbox. @default the config file's `sandbox` section when it has one, else no sandbox
   */
  sandbox?: SandboxPolicyInput | boolean;
  /**
   * Commit every turn to the workspace's shadow git repository under `<home>/projects/<id>/shadow.git`
   * (never the user's .git), in the background. @default true
   */
  shadowGit?: boolean;
  /** An explicit config file (CI). An invalid file is an error, never replaced by defaults. @default <workspace>/safeturn.config.json */
  configPath?: string;
  /**
   * Open for reading only (rollback points, coverage, history): no session lock is taken, nothing
   * is recorded, changes throw `READ_ONLY`. A session that does not exist yet is not created.
   * @default false
   */
  readOnly?: boolean;
  /**
   * How long to wait for the session lock another live process holds (one writer per session).
   * @default 2000 ms; then `SESSION_IN_USE`
   */
  lockTimeoutMs?: number;
  /**
   * Progress of a full workspace scan (the first bash call, the shadow baseline): called with the
   * number of entries seen so far, every 5,000. The CLI prints it on stderr when that is a terminal.
   */
  onScanProgress?: (entries: number) => void;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Environment to read SAFETURN_HOME/HOME from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Options of `session.beginTurn()`. */
export interface BeginTurnOptions {
  /** Turn id, unique in the session. @default 't<n>' */
  id?: string;
  /** What the user asked, shown in rollback points (cut to 120 chars there). */
  label: string;
}

/** One rollback point: the state right before the turn began. */
export interface RollbackPoint {
  /** 1 = newest. The number `/rewind N` and `safeturn rewind N` take. */
  number: number;
  turnId: string;
  /** The turn's label, cut to 120 characters. */
  label: string;
  /** ISO 8601 time the turn began. */
  startedAt: string;
  /** ISO 8601 time the turn ended, if it did. */
  endedAt?: string;
  /** Root-relative paths the turn touched, sorted. Paths in a worktree are prefixed by nothing; see `root`. */
  files: string[];
}

/** What `endTurn()` returns. */
export interface TurnSummary {
  turnId: string;
  label: string;
  /** Paths captured in the turn (root-relative), sorted. */
  files: string[];
}
