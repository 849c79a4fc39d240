import { z } from 'zod';
import { SafeturnError } from '../errors/safeturn-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { Session } from './session.js';
import { isToolFailure } from './tool-failure.js';
import type { SafeturnTool } from './tool-types.js';

/** One line of a recorded agent session: `{"turn","label","tool","input"}`. */
export const replayLineSchema = z.object({
  turn: z.string().min(1),
  label: z.string().optional(),
  tool: z.string().min(1),
  input: z.unknown(),
});
/** One parsed line of a recorded session. */
export type ReplayLine = z.infer<typeof replayLineSchema>;

/** What one replayed call did. */
export interface ReplayCallResult {
  turn: string;
  tool: string;
  ok: boolean;
  error?: { code: string; message: string };
}

/**
 * Parses a recorded session (JSON Lines). Blank lines are ignored.
 * @throws UsageError `INVALID_INPUT` naming the first bad line and field (`data: { line, field? }`).
 */
export function parseReplay(text: string): ReplayLine[] {
  const lines: ReplayLine[] = [];
  const raw = text.split('\n');
  for (let index = 0; index < raw.length; index += 1) {
    const line = raw[index]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new UsageError('INVALID_INPUT', `line ${index + 1} is not JSON: ${(error as Error).message}`, {
        cause: error,
        data: { line: index + 1 },
      });
    }
    const parsed = replayLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join('.') : '(the line)';
      throw new UsageError(
        'INVALID_INPUT',
        `line ${index + 1}: field "${field}": ${issue?.message ?? 'invalid'}. A replay line is {"turn": string, "label"?: string, "tool": string, "input": object}.`,
        { data: { line: index + 1, field } },
      );
    }
    lines.push(parsed.data);
  }
  return lines;
}

/** Options of {@link replay}. */
export interface ReplayOptions {
  session: Session;
  /** Wrapped tools by name. */
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input type.
  tools: Record<string, SafeturnTool<any, unknown>>;
  lines: ReplayLine[];
  /** Called after each call. */
  onCall?: (result: ReplayCallResult) => void;
  abortSignal?: AbortSignal;
}

/**
 * Replays a recorded agent session through wrapped tools: a turn begins at its first line and
 * ends when the next turn id appears or the lines end. Tools not in `tools` are reported as
 * `UNKNOWN_TOOL`; a guard refusal is the tool's answer, not a failure of the replay.
 *
 * @returns one result per line.
 * @throws host failures only (store I/O, a turn id already used in the session).
 */
export async function replay(options: ReplayOptions): Promise<ReplayCallResult[]> {
  const { session } = options;
  const results: ReplayCallResult[] = [];
  let current: string | undefined;
  try {
    for (const line of options.lines) {
      options.abortSignal?.throwIfAborted();
      if (line.turn !== current) {
        if (current !== undefined) await session.endTurn();
        await session.beginTurn({ id: line.turn, label: line.label ?? '' });
        current = line.turn;
      }
      const tool = options.tools[line.tool];
      let result: ReplayCallResult;
      if (!tool) {
        result = {
          turn: line.turn,
          tool: line.tool,
          ok: false,
          error: { code: 'UNKNOWN_TOOL', message: `No tool named ${line.tool}.` },
        };
      } else {
        try {
          const output = await tool.execute(line.input, {
            root: session.root,
            ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
          });
          result = isToolFailure(output)
            ? {
                turn: line.turn,
                tool: line.tool,
                ok: false,
                error: { code: output.error.code, message: output.error.message },
              }
            : { turn: line.turn, tool: line.tool, ok: true };
        } catch (error) {
          if (!SafeturnError.isInstance(error) || error.code === 'STORE_IO' || error.code === 'STORE_CORRUPT')
            throw error;
          result = {
            turn: line.turn,
            tool: line.tool,
            ok: false,
            error: { code: error.code, message: error.message },
          };
        }
      }
      results.push(result);
      options.onCall?.(result);
    }
  } finally {
    if (current !== undefined && session.currentTurn()) await session.endTurn();
  }
  return results;
}
