import { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';

/** A session id: `[A-Za-z0-9._-]{1,200}`, not starting with `_` (DESIGN.md). */
export const sessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,200}$/, 'session id must match [A-Za-z0-9._-]{1,200}')
  .refine((value) => !value.startsWith('_'), 'session id must not start with _')
  .describe('Id of the session the turn belongs to.');

/** A turn id: a non-negative integer or a short string without control characters; stored as a string. */
export const turnIdSchema = z
  .union([
    z.number().int().nonnegative(),
    z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\u0000-\u001f\u007f]+$/, 'turn id must not contain control characters'),
  ])
  .transform((value) => String(value))
  .describe('Id of the turn within its session, e.g. 3 or "turn-3".');

/** Free text describing a turn, e.g. the user's message; stored JSON-encoded in the commit. */
export const labelSchema = z.string().max(100_000).describe('Human-readable label of the turn.');

/** A reference to a turn's commit: a commit id (4 to 40 hex) or a session id and turn id. */
export const turnReferenceSchema = z
  .union([
    z.string().regex(/^[0-9a-f]{4,40}$/, 'a commit id is 4 to 40 lower-case hex characters'),
    z.object({ sessionId: sessionIdSchema, turnId: turnIdSchema }),
  ])
  .describe('A turn: its commit id, or { sessionId, turnId }.');

/** Input of `commitTurn`. */
export const commitTurnInputSchema = z.object({
  sessionId: sessionIdSchema,
  turnId: turnIdSchema,
  label: labelSchema.optional(),
  paths: z.array(z.string()).max(1_000_000).describe('Workspace-relative POSIX paths the turn changed.'),
});

/** Input of `recordSkipped`. */
export const recordSkippedInputSchema = z.object({
  sessionId: sessionIdSchema,
  turnId: turnIdSchema,
  label: labelSchema.optional(),
  reason: z.string().min(1).max(1_000).describe('Why the commit was skipped, e.g. "worktree-active".'),
});

/** Input of `log`. */
export const logQuerySchema = z.object({
  session: sessionIdSchema.optional(),
  path: z.string().min(1).optional(),
  limit: z.number().int().positive().max(1_000_000).optional(),
});

/**
 * Parses an input with a zod schema.
 *
 * @throws UsageError `INVALID_INPUT` naming the first issue.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  what: string,
): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(
    'INVALID_INPUT',
    `Invalid ${what}: ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}.`,
    {
      data: { issues: parsed.error.issues },
      cause: parsed.error,
    },
  );
}
