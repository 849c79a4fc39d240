import { execa } from 'execa';
import type { SandboxPolicy } from './policy-schema.js';
import type { SandboxCleanupReport } from './sandbox-cleanup.js';
import { SandboxUnavailableError } from './sandbox-unavailable-error.js';
import { type WrapCommandOptions, wrapCommand } from './wrap-command.js';

/** Options of {@link runSandboxed}. */
export interface RunSandboxedOptions extends WrapCommandOptions {
  policy: SandboxPolicy;
  /** Kill the command (SIGTERM, then SIGKILL after 2 s) after this many milliseconds. @default no limit */
  timeoutMs?: number;
  /** Bytes or text written to the command's stdin (then closed). @default empty stdin */
  stdin?: string | Uint8Array;
  /** The shell. @default 'bash' */
  shell?: string;
}

/** What {@link runSandboxed} returns. A command the sandbox refused simply fails here; it is never retried outside. */
export interface RunSandboxedResult {
  /** Exit code; as in a shell, 128+N means the command was killed by signal N. Undefined when bwrap itself was killed. */
  exitCode: number | undefined;
  /** The signal that killed the sandbox itself (timeout, abort), e.g. 'SIGTERM'. */
  signal: string | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Environment variables dropped as secret-looking. */
  droppedEnv: string[];
  cleanup: SandboxCleanupReport;
}

/**
 * Runs `bash -lc command` under the policy through {@link wrapCommand} and execa (argv arrays,
 * no shell string around the sandbox), then cleans up.
 *
 * @param command - the shell command text given to `bash -lc`.
 * @returns exit code, signal, output and the cleanup report.
 * @throws SandboxUnavailableError `SANDBOX_UNAVAILABLE` (the command did not run, also `setup-failed` when bwrap
 *   could not build this run's mounts); SandboxPolicyError `SANDBOX_POLICY`.
 * @example
 * ```ts
 * const result = await runSandboxed('npm test', { policy, timeoutMs: 60_000 });
 * ```
 */
export async function runSandboxed(
  command: string,
  options: RunSandboxedOptions,
): Promise<RunSandboxedResult> {
  // fd 3 carries the seccomp program when the network is off (as bytes or via the file trampoline).
  const statusFd = options.policy.network ? 3 : 4;
  const wrapped = await wrapCommand([options.shell ?? 'bash', '-lc', command], options.policy, {
    ...options,
    jsonStatusFd: statusFd,
  });
  const linux = wrapped.backend === 'bwrap';
  const extra: (Uint8Array | 'ignore' | 'pipe')[] = [...wrapped.extraStdio];
  if (linux) {
    while (3 + extra.length < statusFd) extra.push('ignore');
    extra.push('pipe');
  }
  let result: RunSandboxedResult;
  try {
    const execution = await execa(wrapped.file, wrapped.args, {
      env: wrapped.env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...extra],
      ...(options.stdin === undefined ? {} : { input: options.stdin }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      ...(options.abortSignal === undefined ? {} : { cancelSignal: options.abortSignal }),
      forceKillAfterDelay: 2_000,
    });
    const stdout = typeof execution.stdout === 'string' ? execution.stdout : '';
    const stderr = typeof execution.stderr === 'string' ? execution.stderr : '';
    result = {
      exitCode: execution.exitCode,
      signal: execution.signal,
      stdout,
      stderr,
      timedOut: execution.timedOut,
      aborted: execution.isCanceled,
      droppedEnv: wrapped.droppedEnv,
      cleanup: await wrapped.cleanup(),
    };
    if (
      linux &&
      execution.signal === undefined &&
      !/"exit-code"/.test(String(execution.stdio[statusFd] ?? ''))
    ) {
      throw new SandboxUnavailableError(
        'setup-failed',
        `bubblewrap could not set up the sandbox, the command did not run: ${stderr.trim() || `exit ${execution.exitCode}`}`,
        { data: { stderr, exitCode: execution.exitCode } },
      );
    }
  } catch (error) {
    await wrapped.cleanup();
    throw error;
  }
  return result;
}
