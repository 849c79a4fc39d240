import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildBwrapArguments, type PrivateTemporaryLayout } from './bwrap-arguments.js';
import { isSameOrInside } from './path-utilities.js';
import { type SandboxPolicy, SandboxPolicySchema } from './policy-schema.js';
import { cleanupAfterRun, type SandboxCleanupReport } from './sandbox-cleanup.js';
import { buildSandboxPlan } from './sandbox-plan.js';
import { SandboxPolicyError } from './sandbox-policy-error.js';
import { detectSandboxSupport, type SandboxSupport } from './sandbox-support.js';
import { scrubEnvironment } from './scrub-environment.js';
import { buildSeatbeltInvocation } from './seatbelt-profile.js';
import { buildUnixSocketFilter } from './seccomp-filter.js';
import { registerStubs } from './stub-registry.js';

/** Options of {@link wrapCommand}. */
export interface WrapCommandOptions {
  /** A result of `detectSandboxSupport()` to reuse; otherwise detection (and its probe) runs now. */
  support?: SandboxSupport;
  /** Passed to detection when `support` is not given. @default process.platform */
  platform?: NodeJS.Platform;
  /** Passed to detection when `support` is not given. */
  bwrapPath?: string;
  /** The environment to scrub and pass on. @default process.env */
  env?: Record<string, string | undefined>;
  /** Working directory of the command: inside the workspace or a writable root. @default policy.workspace */
  cwd?: string;
  /**
   * How bwrap gets the seccomp program (Linux, network off). `'stdio'`: as `extraStdio` bytes on fd 3,
   * for execa. `'file'`: from a file in the private temp dir, opened on fd 3 by a constant `/bin/sh`
   * trampoline (`exec "$@" 3<"$f"`; paths are arguments, never pasted into the script) so hosts that
   * cannot pass extra fds (node-pty) still get the filter; `extraStdio` is then empty. @default 'stdio'
   */
  seccompDelivery?: 'stdio' | 'file';
  /**
   * Linux: an output fd on which bwrap writes JSON status lines (`{ "exit-code": N }` once the command
   * ran). Its absence after exit means bwrap failed to set the sandbox up (see `runSandboxed`).
   * The seccomp program uses fd 3, so pass 4 when the network is off. @default none
   */
  jsonStatusFd?: number;
  /** Where the private temp dir is created on the host. @default os.tmpdir() */
  temporaryParent?: string;
  abortSignal?: AbortSignal;
}

/**
 * A command ready for execa: `execa(file, args, { env, extendEnv: false, stdio: ['pipe','pipe','pipe', ...extraStdio] })`.
 * One wrapped command is for one spawn; call `cleanup()` after it exits (also on failure).
 */
export interface WrappedCommand {
  /** What enforces the policy: bubblewrap, Seatbelt, or nothing (danger-full-access). */
  backend: 'bwrap' | 'seatbelt' | 'none';
  /** Absolute path of bwrap or sandbox-exec, /bin/sh for the seccomp-file trampoline, or the command itself in danger-full-access. */
  file: string;
  args: string[];
  /** The complete, scrubbed environment. Spawn with `extendEnv: false` so nothing is added back. */
  env: Record<string, string>;
  /** Bytes the child reads on fd 3, 4, ... (the seccomp program on Linux with the network off). */
  extraStdio: Uint8Array[];
  /** Names of environment variables dropped as secret-looking. */
  droppedEnv: string[];
  /** Removes mount stubs, new hook files and the private temp dir; idempotent. */
  cleanup(): Promise<SandboxCleanupReport>;
}

/** Constant script: opens the seccomp file ($1) on fd 3 and execs bwrap with the rest of the arguments. */
const SECCOMP_TRAMPOLINE = 'f=$1; shift; exec "$@" 3<"$f"';

async function createLayout(parent: string): Promise<PrivateTemporaryLayout> {
  const root = await realpath(await mkdtemp(path.join(parent, 'safeturn-sandbox-')));
  await chmod(root, 0o700);
  const layout = {
    root,
    tmp: path.join(root, 'tmp'),
    emptyFile: path.join(root, 'empty-file'),
    emptyDirectory: path.join(root, 'empty-directory'),
  };
  await mkdir(layout.tmp, { mode: 0o700 });
  await mkdir(layout.emptyDirectory);
  await writeFile(layout.emptyFile, '');
  return layout;
}

function once(run: () => Promise<SandboxCleanupReport>): () => Promise<SandboxCleanupReport> {
  let result: Promise<SandboxCleanupReport> | undefined;
  return () => {
    result ??= run();
    return result;
  };
}

/**
 * Wraps an argv so it runs under the policy: bwrap on Linux (mounts, namespaces, seccomp), a
 * Seatbelt profile via /usr/bin/sandbox-exec on macOS, nothing in `danger-full-access` (the
 * environment is still scrubbed). Creates the private temp dir before returning. Never falls
 * back to running unsandboxed.
 *
 * @param argv - the command and its arguments, e.g. `['bash', '-lc', 'npm test']`; never a shell string.
 * @param policy - a resolved policy from `resolvePolicy`.
 * @returns a {@link WrappedCommand}.
 * @throws SandboxUnavailableError `SANDBOX_UNAVAILABLE` when there is no sandbox here.
 * @throws SandboxPolicyError `SANDBOX_POLICY` for an invalid policy or a cwd outside the writable area and workspace.
 * @example
 * ```ts
 * const wrapped = await wrapCommand(['bash', '-lc', 'make'], policy);
 * try {
 *   await execa(wrapped.file, wrapped.args, { env: wrapped.env, extendEnv: false, stdio: ['pipe', 'pipe', 'pipe', ...wrapped.extraStdio] });
 * } finally {
 *   await wrapped.cleanup();
 * }
 * ```
 */
export async function wrapCommand(
  argv: readonly string[],
  policy: SandboxPolicy,
  options: WrapCommandOptions = {},
): Promise<WrappedCommand> {
  const parsed = SandboxPolicySchema.safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(root)';
    throw new SandboxPolicyError(field, `Invalid sandbox policy: ${field}: ${issue.message}.`, {
      cause: parsed.error,
    });
  }
  if (argv.length === 0 || argv[0] === '') throw new SandboxPolicyError('argv', 'The command argv is empty.');
  const scrubbed = scrubEnvironment(options.env ?? process.env, policy.allowEnv);
  if (policy.mode === 'danger-full-access') {
    return {
      backend: 'none',
      file: argv[0]!,
      args: argv.slice(1),
      env: scrubbed.env,
      extraStdio: [],
      droppedEnv: scrubbed.dropped,
      cleanup: async () => ({
        removedStubs: [],
        keptStubs: [],
        removedHooks: [],
        removedCreatedFiles: [],
        temporaryDirectoryRemoved: true,
        problems: [],
      }),
    };
  }
  const cwd = await realpath(options.cwd ?? policy.workspace).catch(() =>
    path.resolve(options.cwd ?? policy.workspace),
  );
  if (![policy.workspace, ...policy.writableRoots].some((root) => isSameOrInside(root, cwd))) {
    throw new SandboxPolicyError(
      'cwd',
      `The working directory ${cwd} is outside the workspace ${policy.workspace}.`,
      { data: { cwd } },
    );
  }
  const support =
    options.support ??
    (await detectSandboxSupport({
      ...(options.platform === undefined ? {} : { platform: options.platform }),
      ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
    }));
  const plan = await buildSandboxPlan(policy);
  const layout = await createLayout(options.temporaryParent ?? os.tmpdir());
  try {
    const linux = support.platform === 'linux';
    const stubRegistry = linux ? await registerStubs(layout.root, plan) : undefined;
    const cleanup = once(() =>
      cleanupAfterRun({
        plan,
        temporaryRoot: layout.root,
        removeStubs: linux,
        home: policy.homeDirectory,
        ...(stubRegistry === undefined ? {} : { stubRegistry }),
      }),
    );
    if (support.platform === 'darwin') {
      const invocation = buildSeatbeltInvocation({ policy, plan, temporaryDirectory: layout.tmp, argv });
      const env = { ...scrubbed.env, TMPDIR: invocation.temporaryDirectory };
      return {
        backend: 'seatbelt',
        file: support.sandboxExecPath,
        args: invocation.args,
        env,
        extraStdio: [],
        droppedEnv: scrubbed.dropped,
        cleanup,
      };
    }
    const filter = policy.network ? undefined : buildUnixSocketFilter(support.architecture);
    const args = buildBwrapArguments({
      policy,
      plan,
      layout,
      features: support.features,
      cwd,
      unsetEnv: scrubbed.dropped,
      seccompFd: policy.network ? undefined : 3,
      jsonStatusFd: options.jsonStatusFd,
      argv,
    });
    const env = { ...scrubbed.env, TMPDIR: '/tmp' };
    if (filter !== undefined && options.seccompDelivery === 'file') {
      const filterFile = path.join(layout.root, 'seccomp.bpf');
      await writeFile(filterFile, filter, { mode: 0o600 });
      const trampoline = [
        '-c',
        SECCOMP_TRAMPOLINE,
        'safeturn-sandbox',
        filterFile,
        support.bwrapPath,
        ...args,
      ];
      return {
        backend: 'bwrap',
        file: '/bin/sh',
        args: trampoline,
        env,
        extraStdio: [],
        droppedEnv: scrubbed.dropped,
        cleanup,
      };
    }
    const extraStdio = filter === undefined ? [] : [filter];
    return {
      backend: 'bwrap',
      file: support.bwrapPath,
      args,
      env,
      extraStdio,
      droppedEnv: scrubbed.dropped,
      cleanup,
    };
  } catch (error) {
    await rm(layout.root, { recursive: true, force: true });
    throw error;
  }
}
