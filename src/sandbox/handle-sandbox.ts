import { type SandboxMode, SandboxModeSchema, type SandboxPolicy } from './policy-schema.js';

/** What `/sandbox` works on: the session's current policy. A change applies to the next call. */
export interface SandboxTarget {
  getPolicy(): SandboxPolicy;
  setPolicy(policy: SandboxPolicy): void;
}

/** The result of {@link handleSandbox}: text for the user, data for a host. */
export interface SandboxCommandResult {
  text: string;
  data: {
    ok: boolean;
    mode: SandboxMode;
    previousMode?: SandboxMode;
    network: boolean;
    writable: string[];
    protectGit: SandboxPolicy['protectGit'];
    denyReadCount: number;
  };
}

function describe(policy: SandboxPolicy): string {
  switch (policy.mode) {
    case 'read-only':
      return 'Commands can read everything except the denyRead paths and write only their private temp dir.';
    case 'workspace-write':
      return [
        `Commands can write ${[policy.workspace, ...policy.writableRoots].join(', ')} and their private temp dir.`,
        policy.protectGit === true
          ? 'Every .git stays read-only.'
          : 'Hooks and config of every .git stay read-only; commits work.',
        `${policy.denyRead.length} denyRead path(s) are hidden. Network: ${policy.network ? 'on' : 'off'}.`,
      ].join(' ');
    case 'danger-full-access':
      return 'No sandbox: commands run with full access to the machine and the network.';
    default: {
      const unreachable: never = policy.mode;
      return unreachable;
    }
  }
}

function summary(
  policy: SandboxPolicy,
  ok: boolean,
  previousMode?: SandboxMode,
): SandboxCommandResult['data'] {
  return {
    ok,
    mode: policy.mode,
    ...(previousMode === undefined ? {} : { previousMode }),
    network: policy.network,
    writable: policy.mode === 'workspace-write' ? [policy.workspace, ...policy.writableRoots] : [],
    protectGit: policy.protectGit,
    denyReadCount: policy.denyRead.length,
  };
}

/**
 * The `/sandbox` slash command. No arguments: shows the mode and what it allows.
 * `read-only`, `workspace-write` or `danger-full-access`: switches to that mode (the full name is
 * required; danger-full-access is never chosen by abbreviation). Anything else: usage, unchanged.
 *
 * @param target - holder of the current policy.
 * @param args - the text after `/sandbox`.
 * @returns `{ text, data }`; `data.ok` is false for unknown arguments.
 * @example
 * ```ts
 * handleSandbox(session, 'read-only').text; // 'Sandbox mode: read-only (was workspace-write). ...'
 * ```
 */
export function handleSandbox(target: SandboxTarget, args: string): SandboxCommandResult {
  const current = target.getPolicy();
  const requested = args.trim();
  if (requested === '') {
    return { text: `Sandbox mode: ${current.mode}. ${describe(current)}`, data: summary(current, true) };
  }
  const parsed = SandboxModeSchema.safeParse(requested);
  if (!parsed.success) {
    return {
      text: `Unknown sandbox mode ${JSON.stringify(requested)}. Usage: /sandbox [read-only | workspace-write | danger-full-access]. Mode unchanged: ${current.mode}.`,
      data: summary(current, false),
    };
  }
  const next: SandboxPolicy = { ...current, mode: parsed.data };
  target.setPolicy(next);
  const change = parsed.data === current.mode ? 'unchanged' : `was ${current.mode}`;
  return {
    text: `Sandbox mode: ${next.mode} (${change}). ${describe(next)} Applies from the next command.`,
    data: summary(next, true, current.mode),
  };
}
