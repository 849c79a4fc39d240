import { z } from 'zod';
import { failWith } from '../../loop/tool-failure.js';
import type { SafeturnTool, ToolContext, ToolResult } from '../../loop/tool-types.js';
import { capOutput } from './output-cap.js';
import { type PreparedCommand, runCommand } from './run-command.js';

/** Input of the reference `bash` tool. Field names are fixed so recorded sessions replay. */
export const bashInputSchema = z.object({
  command: z.string().min(1).describe('The shell command, run with bash -lc in the workspace.'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .optional()
    .describe('Kill the command after this many ms. Default: 120000.'),
});
/** Input of the `bash` tool (see {@link bashInputSchema}). */
export type BashInput = z.infer<typeof bashInputSchema>;

/** Data of a finished command. */
export interface BashData {
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** The sandbox's cleanup report (removed hooks, mount stubs), when the command ran sandboxed. */
  sandbox?: unknown;
}

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** Default timeout in milliseconds. @default 120_000 */
  timeoutMs?: number;
  /** Most characters of stdout and of stderr given to the model (head and tail kept). @default 30_000 */
  maxOutputChars?: number;
  /**
   * Turns the argv into the command actually spawned — the sandbox hook (`wrapCommand`).
   * @default runs the argv as is
   */
  prepare?: (argv: string[], context: ToolContext) => Promise<PreparedCommand>;
  /** Environment of the command. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * The reference `bash` tool: runs `bash -lc <command>` in the active root with a timeout, the call's
 * AbortSignal and an output cap (middle elided with a count); the result has the exit code and signal.
 * A non-zero exit is a result, not a failure: the model reads it. Files the command changes are
 * captured by the bash staging middleware of `wrapTools`.
 */
export function createBashTool(options: BashToolOptions = {}): SafeturnTool<BashInput, ToolResult<BashData>> {
  const maxChars = options.maxOutputChars ?? 30_000;
  return {
    description:
      'Run a shell command (bash -lc) in the workspace. Returns exit code, stdout and stderr (long output is cut in the middle). Files it changes can be rewound.',
    inputSchema: bashInputSchema,
    kind: 'bash',
    async execute(input, context) {
      const argv = ['bash', '-lc', input.command];
      let prepared: PreparedCommand;
      try {
        prepared = context.prepareCommand
          ? await context.prepareCommand(argv)
          : options.prepare
            ? await options.prepare(argv, context)
            : { file: argv[0]!, args: argv.slice(1) };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return failWith(typeof code === 'string' ? code : 'TOOL_FAILED', (error as Error).message);
      }
      const timeoutMs = input.timeout_ms ?? options.timeoutMs ?? 120_000;
      const outcome = await runCommand(prepared, {
        cwd: context.root,
        timeoutMs,
        ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      const stdout = capOutput(outcome.stdout, maxChars);
      const stderr = capOutput(outcome.stderr, maxChars);
      const status = outcome.timedOut
        ? `timed out after ${timeoutMs} ms and was killed`
        : outcome.aborted
          ? 'aborted and killed'
          : outcome.signal
            ? `killed by ${outcome.signal}`
            : `exit code ${outcome.exitCode}`;
      const output = [`[${status}]`, stdout && `stdout:\n${stdout}`, stderr && `stderr:\n${stderr}`]
        .filter(Boolean)
        .join('\n');
      return {
        ok: true,
        output,
        data: {
          exitCode: outcome.exitCode,
          signal: outcome.signal,
          timedOut: outcome.timedOut,
          durationMs: outcome.durationMs,
          stdout,
          stderr,
          ...(outcome.cleanup === undefined ? {} : { sandbox: outcome.cleanup }),
        },
      };
    },
  };
}
