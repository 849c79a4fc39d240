import { z } from 'zod';

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
