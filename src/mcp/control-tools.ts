import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RewindResult } from '../checkpoint/checkpoint-store.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import { formatRestoreReport, formatRollbackPoints } from '../loop/format.js';
import type { Session } from '../loop/session.js';
import { failWith } from '../loop/tool-failure.js';
import { errorResult, failureResult } from './call-tool-result.js';

/** Input of the MCP `rewind` tool: a rollback point number or a turn id, plus `force` / `dry_run`. */
export const rewindInputSchema = z
  .object({
    number: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Rollback point number from rollback_points (1 = the newest turn).'),
    turn: z.string().min(1).optional().describe('Turn id to rewind to (instead of number).'),
    force: z
      .boolean()
      .optional()
      .describe('Overwrite files changed by hand since the agent wrote them (redo brings them back).'),
    dry_run: z.boolean().optional().describe('Only report what would change; write nothing.'),
  })
  .strict();

/** Input of the MCP `redo` tool. */
export const redoInputSchema = z
  .object({
    force: z.boolean().optional().describe('Overwrite files changed since the rewind.'),
    dry_run: z.boolean().optional().describe('Only report what would change; write nothing.'),
  })
  .strict();

/** Input of the MCP `rollback_points` tool. */
export const rollbackPointsInputSchema = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('How many rollback points to list, newest first. Default 10.'),
  })
  .strict();

/** A tool that works on the session itself, outside any turn. */
export interface ControlTool {
  description: string;
  inputSchema: z.ZodType;
  /** Runs the tool; never throws for model-facing failures. */
  run(session: Session, input: unknown): Promise<CallToolResult>;
}

function invalidInput(name: string, error: z.ZodError): CallToolResult {
  const detail = error.issues
    .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
    .join('; ');
  return failureResult(failWith('INVALID_INPUT', `Invalid input for ${name}: ${detail}`));
}

/** A restore report as an MCP result (`isError` when some file failed). */
function restoreResult(result: RewindResult, verb: string): CallToolResult {
  return {
    content: [{ type: 'text', text: formatRestoreReport(result, verb) }],
    structuredContent: { ok: true, ...result },
    ...(result.failed.length > 0 ? { isError: true } : {}),
  };
}

/**
 * The MCP tools that act on the session: `rewind` (put files back as they were before a turn,
 * undoing it and every later turn), `redo` (undo the last rewind) and `rollback_points` (list the
 * turns one can rewind to).
 */
export function createControlTools(): Record<'rewind' | 'redo' | 'rollback_points', ControlTool> {
  return {
    rewind: {
      description:
        'Undo turns: put the files back as they were right before a rollback point (see rollback_points), undoing that turn and every later one. Give number (1 = newest) or turn. Files the user changed by hand since are refused with REWIND_CONFLICT unless force is true.',
      inputSchema: rewindInputSchema,
      async run(session, input) {
        const parsed = rewindInputSchema.safeParse(input ?? {});
        if (!parsed.success) return invalidInput('rewind', parsed.error);
        const { number, turn, force, dry_run: dryRun } = parsed.data;
        if ((number === undefined) === (turn === undefined)) {
          return failureResult(
            failWith(
              'INVALID_INPUT',
              'rewind takes exactly one of number (a rollback point) or turn (a turn id).',
            ),
          );
        }
        try {
          const result = await session.rewind((turn ?? number) as string | number, {
            force: force ?? false,
            dryRun: dryRun ?? false,
          });
          return restoreResult(result, 'Rewound');
        } catch (error) {
          if (SafeturnError.isInstance(error)) return errorResult(error);
          throw error;
        }
      },
    },
    redo: {
      description:
        'Undo the last rewind (only while no turn ran since it): puts back what the rewind overwrote.',
      inputSchema: redoInputSchema,
      async run(session, input) {
        const parsed = redoInputSchema.safeParse(input ?? {});
        if (!parsed.success) return invalidInput('redo', parsed.error);
        try {
          const result = await session.redo({
            force: parsed.data.force ?? false,
            dryRun: parsed.data.dry_run ?? false,
          });
          return restoreResult(result, 'Redid');
        } catch (error) {
          if (SafeturnError.isInstance(error)) return errorResult(error);
          throw error;
        }
      },
    },
    rollback_points: {
      description:
        'List the rollback points (turns that can be rewound), newest first, numbered from 1, with their label, time and the files they touched.',
      inputSchema: rollbackPointsInputSchema,
      async run(session, input) {
        const parsed = rollbackPointsInputSchema.safeParse(input ?? {});
        if (!parsed.success) return invalidInput('rollback_points', parsed.error);
        const points = session.rollbackPoints().slice(0, parsed.data.limit ?? 10);
        return {
          content: [{ type: 'text', text: formatRollbackPoints(points) }],
          structuredContent: { ok: true, points },
        };
      },
    },
  };
}
