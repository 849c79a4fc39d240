import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { dir } from 'tmp-promise';
import type { SandboxPolicy, SandboxPolicyInput } from '../../src/sandbox/policy-schema.js';
import { resolvePolicy } from '../../src/sandbox/resolve-policy.js';
import { type RunSandboxedResult, runSandboxed } from '../../src/sandbox/run-sandboxed.js';
import type { SandboxSupport } from '../../src/sandbox/sandbox-support.js';

/** A per-test world: workspace, HOME, SAFETURN_HOME and an outside directory, all real. */
export interface Fixture {
  base: string;
  workspace: string;
  home: string;
  safeturnHome: string;
  outside: string;
  env: Record<string, string>;
  policy(partial?: SandboxPolicyInput): Promise<SandboxPolicy>;
  run(
    command: string,
    partial?: SandboxPolicyInput,
    extra?: { stdin?: string; timeoutMs?: number; abortSignal?: AbortSignal },
  ): Promise<RunSandboxedResult>;
  cleanup(): Promise<void>;
}

/** Options of {@link makeFixture}. */
export interface FixtureOptions {
  /** Parent of the per-test directory. /var/tmp by default, so the host /tmp replacement is not what stops an attack. */
  parent?: string;
  /** Workspace directory name. */
  workspaceName?: string;
  /** Put HOME inside the workspace. */
  homeInWorkspace?: boolean;
  support?: SandboxSupport;
}

export async function makeFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const temporary = await dir({ unsafeCleanup: true, tmpdir: options.parent ?? '/var/tmp' });
  const base = temporary.path;
  const workspace = path.join(base, options.workspaceName ?? 'ws');
  const home = options.homeInWorkspace ? path.join(workspace, 'home') : path.join(base, 'home');
  const safeturnHome = path.join(base, 'safeturn-home');
  const outside = path.join(base, 'outside');
  for (const directory of [workspace, home, safeturnHome, outside])
    await mkdir(directory, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    SAFETURN_HOME: safeturnHome,
    LANG: 'C.UTF-8',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  let cleaned = false;
  const policy = (partial?: SandboxPolicyInput) => resolvePolicy(partial ?? {}, { workspace, env });
  return {
    base,
    workspace,
    home,
    safeturnHome,
    outside,
    env,
    policy,
    run: async (command, partial, extra = {}) =>
      runSandboxed(command, {
        policy: await policy(partial),
        env,
        ...(options.support === undefined ? {} : { support: options.support }),
        ...extra,
      }),
    cleanup: async () => {
      // Idempotent: a test file's afterEach may see the same fixture twice.
      if (cleaned) return;
      cleaned = true;
      await temporary.cleanup();
    },
  };
}

/** Runs git on the host (outside the sandbox) with a fixed identity. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const result = await execa(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      env: { GIT_CONFIG_NOSYSTEM: '1', HOME: cwd },
    },
  );
  return result.stdout;
}
