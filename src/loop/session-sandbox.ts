import path from 'node:path';
import { isSameOrInside } from '../core/paths.js';
import { checkWritePath } from '../sandbox/check-write-path.js';
import type { SandboxPolicy, SandboxPolicyInput } from '../sandbox/policy-schema.js';
import { resolvePolicy } from '../sandbox/resolve-policy.js';
import { detectSandboxSupport, type SandboxSupport } from '../sandbox/sandbox-support.js';
import { wrapCommand } from '../sandbox/wrap-command.js';
import type { PreparedCommand } from '../tools/bash/run-command.js';

/** Options of {@link SessionSandbox}. */
export interface SessionSandboxOptions {
  workspace: string;
  home: string;
  /** The session's policy input (merged over the config file); `undefined` = the config file alone. */
  input: SandboxPolicyInput | undefined;
  /** An explicit config file. @default <workspace>/safeturn.config.json when present */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The session's sandbox: its policy (resolved once for the workspace, and again for a worktree
 * root), platform support detected once, and the two places it applies — `bash` spawns
 * (`prepare`) and the write tools (`checkWrite`, the same policy object).
 */
export class SessionSandbox {
  readonly #options: SessionSandboxOptions;
  #policy: SandboxPolicy;
  readonly #perRoot = new Map<string, SandboxPolicy>();
  #support: Promise<SandboxSupport> | undefined;

  private constructor(options: SessionSandboxOptions, policy: SandboxPolicy) {
    this.#options = options;
    this.#policy = policy;
  }

  /**
   * Resolves the policy for the workspace.
   * @throws SandboxPolicyError `SANDBOX_POLICY` for an invalid policy or config file (never replaced by defaults).
   */
  static async open(options: SessionSandboxOptions): Promise<SessionSandbox> {
    const policy = await resolvePolicy(options.input, {
      workspace: options.workspace,
      safeturnHome: options.home,
      ...(options.configPath ? { configPath: options.configPath } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    return new SessionSandbox(options, policy);
  }

  /** The policy in force for the workspace. */
  get policy(): SandboxPolicy {
    return this.#policy;
  }

  /** Replaces the policy (the `/sandbox` command); applies to the next call. */
  setPolicy(policy: SandboxPolicy): void {
    this.#policy = policy;
    this.#perRoot.clear();
  }

  /** The policy for a root: the workspace's, or the same rules with the worktree as the writable workspace. */
  async policyFor(root: string): Promise<SandboxPolicy> {
    if (root === this.#policy.workspace) return this.#policy;
    let policy = this.#perRoot.get(root);
    if (!policy) {
      policy = await resolvePolicy(
        {
          mode: this.#policy.mode,
          network: this.#policy.network,
          protectGit: this.#policy.protectGit,
          writableRoots: this.#policy.writableRoots,
          denyRead: this.#policy.denyRead,
        },
        {
          workspace: root,
          // A worktree lives in safeturn's home: protect the store (projects/), not the worktree itself.
          safeturnHome: path.join(this.#options.home, 'projects'),
          readConfigFile: false,
          ...(this.#options.env ? { env: this.#options.env } : {}),
        },
      );
      this.#perRoot.set(root, policy);
    }
    return policy;
  }

  /**
   * Wraps a bash argv for the sandbox of `root`.
   * @throws SandboxUnavailableError `SANDBOX_UNAVAILABLE` when the platform cannot enforce the policy.
   */
  async prepare(argv: string[], root: string): Promise<PreparedCommand> {
    const policy = await this.policyFor(root);
    this.#support ??= detectSandboxSupport();
    const support = await this.#support.catch((error: unknown) => {
      this.#support = undefined;
      throw error;
    });
    const wrapped = await wrapCommand(argv, policy, {
      support,
      cwd: root,
      seccompDelivery: 'file',
      ...(this.#options.env ? { env: this.#options.env } : {}),
    });
    return { file: wrapped.file, args: wrapped.args, env: wrapped.env, cleanup: () => wrapped.cleanup() };
  }

  /**
   * Whether the policy lets the read tools read this absolute path: not inside a `denyRead` path
   * (what bash cannot read, the read tool does not read either).
   */
  async checkRead(
    root: string,
    absolutePath: string,
  ): Promise<{ allowed: true } | { allowed: false; message: string }> {
    const policy = await this.policyFor(root);
    if (policy.mode === 'danger-full-access') return { allowed: true };
    const denied = policy.denyRead.find((entry) => isSameOrInside(entry, absolutePath));
    return denied === undefined
      ? { allowed: true }
      : {
          allowed: false,
          message: `${absolutePath} is inside ${denied}, which the sandbox policy keeps unreadable (denyRead).`,
        };
  }

  /** Whether the policy lets the write tools write this absolute path (a path bash may not write, they may not either). */
  async checkWrite(root: string, absolutePath: string) {
    return checkWritePath(await this.policyFor(root), absolutePath);
  }
}
