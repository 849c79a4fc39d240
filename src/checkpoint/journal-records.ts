import { z } from 'zod';
import { fileStateSchema } from './file-state.js';

const relativePath = z.string().min(1);
/** Absolute root the path is relative to; omitted = the session's workspace. */
const root = z.string().optional();

/** One path's change during a rewind or redo: what it held before, and what was written. */
export const restoreEntrySchema = z.object({
  path: relativePath,
  root,
  before: fileStateSchema,
  after: fileStateSchema,
});
/** See {@link restoreEntrySchema}. */
export type RestoreEntry = z.infer<typeof restoreEntrySchema>;

/**
 * One line of `sessions/<session>/journal.jsonl`. The journal is append-only JSON Lines;
 * every record read back is validated with this schema, and a torn or invalid line is skipped.
 */
export const journalRecordSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session'),
    v: z.literal(1),
    sessionId: z.string(),
    workspace: z.string(),
    at: z.string(),
  }),
  z.object({
    type: z.literal('turn'),
    turn: z.string(),
    label: z.string(),
    index: z.number().int(),
    at: z.string(),
  }),
  z.object({ type: z.literal('turn-end'), turn: z.string(), at: z.string() }),
  /** A pre-image: the first capture of a path in a turn. `dirs` = parent directories that did not exist. */
  z.object({
    type: z.literal('capture'),
    turn: z.string(),
    path: relativePath,
    root,
    pre: fileStateSchema,
    dirs: z.array(relativePath).optional(),
  }),
  /** The state the agent (or a bash call) left a path in: rule 12's evidence. */
  z.object({ type: z.literal('post'), turn: z.string(), path: relativePath, root, post: fileStateSchema }),
  /** A directory created during the turn (removed on rewind when empty). */
  z.object({ type: z.literal('mkdir'), turn: z.string(), path: relativePath, root }),
  /** A guard baseline; `fp` absent = dropped. `mtimeNs` is a decimal string (bigint). */
  z.object({
    type: z.literal('read'),
    key: z.string(),
    fp: z.object({ mtimeNs: z.string(), size: z.number(), sha256: z.string() }).optional(),
  }),
  z.object({
    type: z.literal('rewind'),
    id: z.string(),
    to: z.string(),
    turns: z.array(z.string()),
    at: z.string(),
    force: z.boolean(),
    entries: z.array(restoreEntrySchema),
    dirs: z.array(z.object({ path: relativePath, root })).optional(),
  }),
  z.object({
    type: z.literal('redo'),
    id: z.string(),
    rewind: z.string(),
    at: z.string(),
    entries: z.array(restoreEntrySchema),
  }),
  /**
   * A rewind in which some paths failed: its turns stay rollback points (a retry rewinds what is
   * left), and it can still be redone.
   */
  z.object({
    type: z.literal('rewind-incomplete'),
    rewind: z.string(),
    failed: z.array(z.string()),
    at: z.string(),
  }),
  /** Retention: these turns are no longer rollback points; their blobs may be collected. */
  z.object({ type: z.literal('prune'), turns: z.array(z.string()), at: z.string() }),
  /** A free-form note for other layers (coverage notes, shadow commits): kept, not interpreted here. */
  z.object({ type: z.literal('note'), turn: z.string().optional(), kind: z.string(), data: z.unknown() }),
]);
/** See {@link journalRecordSchema}. */
export type JournalRecord = z.infer<typeof journalRecordSchema>;
