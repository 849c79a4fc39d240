import { execa } from 'execa';
import { withoutRedirectingGitVariables } from '../core/git-environment.js';
import { WorktreeError } from './worktree-error.js';

// Hooks and fsmonitor run user programs; signing needs keys and prompts. None belong in our plumbing.
const safetyConfig = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.quotePath=false',
  '--literal-pathspecs',
];

/** Fixed identity of the commit that records a worktree's state at creation. */
export const safeturnIdentity = {
  GIT_AUTHOR_NAME: 'safeturn',
  GIT_AUTHOR_EMAIL: 'safeturn@localhost',
  GIT_COMMITTER_NAME: 'safeturn',
  GIT_COMMITTER_EMAIL: 'safeturn@localhost',
};

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Directory to run in. */
  cwd: string;
  args: string[];
  /** Bytes or text for stdin. */
  input?: string | Uint8Array;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Return a failed run instead of throwing. @default false */
  allowFailure?: boolean;
  abortSignal?: AbortSignal;
}

/** Result of {@link runGit}. */
export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

function environment(extra: Record<string, string> | undefined): Record<string, string> {
  return { ...withoutRedirectingGitVariables(process.env), LC_ALL: 'C', ...extra };
}

function failure(
  options: RunGitOptions,
  stderr: string,
  exitCode: number | undefined,
  cause?: unknown,
): WorktreeError {
  const command = `git ${options.args.join(' ')}`;
  return new WorktreeError('WORKTREE', `${command} failed (exit ${exitCode ?? '?'}): ${stderr.trim()}`, {
    data: { command, cwd: options.cwd, stderr, exitCode },
    cause,
  });
}

/**
 * Runs the git CLI with a scrubbed environment (no `GIT_DIR`-style redirection), hooks and
 * fsmonitor off, no signing, literal pathspecs.
 *
 * @returns stdout (UTF-8), stderr and the exit code.
 * @throws WorktreeError `WORKTREE` when git fails (unless `allowFailure`) or cannot be started.
 */
export async function runGit(options: RunGitOptions): Promise<GitResult> {
  const result = await execa('git', [...safetyConfig, ...options.args], {
    cwd: options.cwd,
    env: environment(options.env),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 1024 * 1024 * 1024,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    ...(options.abortSignal === undefined ? {} : { cancelSignal: options.abortSignal }),
  }).catch((error: unknown) => {
    throw failure(options, String(error), undefined, error);
  });
  if (result.isCanceled) options.abortSignal?.throwIfAborted();
  if (result.failed && result.exitCode === undefined) {
    throw failure(options, result.message ?? 'git could not run', undefined, result);
  }
  const exitCode = result.exitCode ?? 1;
  if (exitCode !== 0 && !options.allowFailure) throw failure(options, result.stderr, exitCode);
  return { stdout: result.stdout, stderr: result.stderr, exitCode };
}

/** Splits NUL-terminated git output (`-z`) into its fields. */
export function splitNul(output: string): string[] {
  return output.split('\0').filter((field) => field !== '');
}

/**
 * Reads blobs by object id in one `git cat-file --batch` process.
 *
 * @param cwd - a directory of the repository.
 * @param objectIds - hex object ids.
 * @returns the raw bytes of each blob by id.
 * @throws WorktreeError `WORKTREE` when git fails or an object is missing.
 */
export async function readBlobs(
  cwd: string,
  objectIds: string[],
  abortSignal?: AbortSignal,
): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  const unique = [...new Set(objectIds)];
  if (unique.length === 0) return blobs;
  const result = await execa('git', [...safetyConfig, 'cat-file', '--batch'], {
    cwd,
    env: environment(undefined),
    extendEnv: false,
    reject: false,
    encoding: 'buffer',
    stripFinalNewline: false,
    maxBuffer: 4 * 1024 * 1024 * 1024,
    input: `${unique.join('\n')}\n`,
    ...(abortSignal === undefined ? {} : { cancelSignal: abortSignal }),
  });
  if (result.exitCode !== 0) {
    throw new WorktreeError(
      'WORKTREE',
      `git cat-file --batch failed: ${Buffer.from(result.stderr).toString()}`,
      {
        data: { cwd },
      },
    );
  }
  const output = Buffer.from(result.stdout);
  let offset = 0;
  for (const objectId of unique) {
    const headerEnd = output.indexOf(0x0a, offset);
    const header = output.subarray(offset, headerEnd).toString('utf8');
    const [, type, size] = header.split(' ');
    if (type === undefined || size === undefined) {
      throw new WorktreeError('WORKTREE', `git object ${objectId} is missing (${header}).`, {
        data: { cwd, objectId },
      });
    }
    const start = headerEnd + 1;
    blobs.set(objectId, Buffer.from(output.subarray(start, start + Number(size))));
    offset = start + Number(size) + 1;
  }
  return blobs;
}
