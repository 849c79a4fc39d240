import { execa } from 'execa';

import type { PreparedCommand } from '../../loop/tool-types.js';

export type { PreparedCommand };

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  cwd: string;
  /** Kill the whole process group after this many milliseconds. */
  timeoutMs: number;
  abortSignal?: AbortSignal;
  /** Text written to stdin, then closed. @default no stdin */
  stdin?: string;
  env?: NodeJS.ProcessEnv;
}

/** What a finished command did. */
export interface CommandOutcome {
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** What the command's `cleanup()` returned (the sandbox's cleanup report). */
  cleanup?: unknown;
}

/**
 * Runs a prepared command with execa in its own process group, so a command that hangs (and
 * everything it started) is killed as a whole: SIGTERM to the group, SIGKILL two seconds later.
 */
export async function runCommand(
  command: PreparedCommand,
  options: RunCommandOptions,
): Promise<CommandOutcome> {
  const started = performance.now();
  const child = execa(command.file, command.args, {
    cwd: options.cwd,
    env: command.env ?? options.env ?? process.env,
    extendEnv: false,
    reject: false,
    detached: true,
    stripFinalNewline: false,
    maxBuffer: 64 * 1024 * 1024,
    ...(options.stdin === undefined ? { stdin: 'ignore' as const } : { input: options.stdin }),
  });
  let timedOut = false;
  let aborted = false;
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let forceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup('SIGTERM');
    forceTimer = setTimeout(() => killGroup('SIGKILL'), 2000);
    forceTimer.unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  options.abortSignal?.addEventListener('abort', onAbort, { once: true });
  if (options.abortSignal?.aborted) onAbort();
  let outcome: CommandOutcome;
  try {
    const result = await child;
    outcome = {
      exitCode: result.exitCode,
      signal: result.signal ?? undefined,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      timedOut,
      aborted,
      durationMs: performance.now() - started,
    };
  } finally {
    clearTimeout(timer);
    if (forceTimer) clearTimeout(forceTimer);
    options.abortSignal?.removeEventListener('abort', onAbort);
    // Leftovers of the group (background jobs) go too.
    killGroup('SIGKILL');
  }
  if (command.cleanup) outcome.cleanup = await command.cleanup();
  return outcome;
}
