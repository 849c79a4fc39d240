import { CommanderError } from 'commander';
import { SafeturnError } from '../errors/safeturn-error.js';
import { JSON_OUTPUT_VERSION } from './output.js';

/** Where {@link reportError} writes, and whether `--json` was given. */
export interface ReportErrorOptions {
  json: boolean;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * The CLI spelling of an error message: the API's wording names options (`force: true`) and
 * model tools (`worktree_list`); on the command line the flag or command is added.
 */
export function cliMessage(error: SafeturnError): string {
  let message = error.message;
  if (error.code === 'REWIND_CONFLICT') message += ' On the command line: use --force.';
  if (error.code === 'WORKTREE_CONFLICT') message += ' On the command line: --strategy ours|theirs|markers.';
  return message
    .replaceAll('worktree_list', 'worktree_list (`safeturn worktree list`)')
    .replaceAll('worktree_discard', 'worktree_discard (`safeturn worktree discard NAME`)')
    .replaceAll('worktree_merge', 'worktree_merge (`safeturn worktree merge NAME`)');
}

/**
 * Reports an error that stopped a command: `safeturn: CODE: message` on stderr and, with `--json`,
 * `{"v":1,"type":"error","code","message",...}` on stdout. An error that is not safeturn's is shown
 * by its message only; its stack only with `SAFETURN_DEBUG=1`. Commander has already printed its
 * own usage errors on stderr.
 */
export function reportError(error: unknown, options: ReportErrorOptions): void {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const debug = (options.env ?? process.env).SAFETURN_DEBUG === '1';
  let record: { code: string; message: string; name?: string; data?: Record<string, unknown> };
  if (error instanceof CommanderError) {
    record = {
      code: 'USAGE',
      message: error.message.replace(/^error: /, ''),
      data: { commander: error.code },
    };
  } else if (SafeturnError.isInstance(error)) {
    record = { ...error.toJSON(), message: cliMessage(error) };
    stderr.write(`safeturn: ${error.code}: ${record.message}\n`);
  } else {
    const system = (error as { code?: unknown } | undefined)?.code;
    record = {
      code: typeof system === 'string' ? system : 'UNEXPECTED',
      message: error instanceof Error ? error.message : String(error),
    };
    stderr.write(`safeturn: ${record.message}\n`);
  }
  if (debug && error instanceof Error && error.stack && !(error instanceof CommanderError))
    stderr.write(`${error.stack}\n`);
  if (options.json) stdout.write(`${JSON.stringify({ v: JSON_OUTPUT_VERSION, type: 'error', ...record })}\n`);
}
