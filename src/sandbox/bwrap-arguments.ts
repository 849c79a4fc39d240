import { isSameOrInside } from './path-utilities.js';
import type { SandboxPolicy } from './policy-schema.js';
import type { SandboxPlan } from './sandbox-plan.js';
import { type BwrapFeatures, namespaceFlags } from './sandbox-support.js';

/** Host paths of the private temp dir of one run. */
export interface PrivateTemporaryLayout {
  /** The directory removed by cleanup. */
  root: string;
  /** Bound on the sandbox's /tmp; $TMPDIR points there. */
  tmp: string;
  /** An empty read-only file, bound over missing protected files. */
  emptyFile: string;
  /** An empty read-only directory, bound over missing protected directories. */
  emptyDirectory: string;
}

/** Inputs of {@link buildBwrapArguments}. */
export interface BwrapArgumentsInput {
  policy: SandboxPolicy;
  plan: SandboxPlan;
  layout: PrivateTemporaryLayout;
  features: BwrapFeatures;
  /** Absolute working directory inside the sandbox. */
  cwd: string;
  /** Environment variable names bwrap must unset (dropped secrets), as a second line of defence. */
  unsetEnv: readonly string[];
  /** bwrap writes `{ "child-pid" }` and, once the command ended, `{ "exit-code" }` JSON lines here. */
  jsonStatusFd?: number | undefined;
  /** Pass the seccomp program on this fd; undefined when the network is on. */
  seccompFd: number | undefined;
  argv: readonly string[];
}

function maskArguments(entry: { path: string; kind: 'file' | 'directory' }): string[] {
  return entry.kind === 'directory'
    ? ['--tmpfs', entry.path, '--remount-ro', entry.path]
    : ['--ro-bind', '/dev/null', entry.path];
}

/**
 * Builds bwrap's argv in the documented mount order: `--ro-bind / /`, `--dev /dev`, the namespace
 * flags with `--proc /proc`, deny-read masks (tmpfs for directories, /dev/null for files), the
 * writable binds (private temp dir on /tmp first, then read-only re-exposure of HOME/workspace
 * when they live under the host /tmp, then writable roots outer first), protected sub-paths
 * re-bound read-only, then the deny-read masks that lie inside one of those binds (they would
 * otherwise be uncovered by it), `--chdir`, `--seccomp`, `--`, the command.
 *
 * @returns the argument list (without the bwrap path itself).
 */
export function buildBwrapArguments(input: BwrapArgumentsInput): string[] {
  const { policy, plan, layout } = input;
  const readOnlyExposures = [policy.homeDirectory, policy.workspace].filter(
    (target, index, list) =>
      list.indexOf(target) === index &&
      isSameOrInside('/tmp', target) &&
      !plan.writable.some((root) => isSameOrInside(root, target)),
  );
  const boundTargets = ['/tmp', ...readOnlyExposures, ...plan.writable];
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    ...namespaceFlags(input.features, policy.network),
    '--proc',
    '/proc',
  ];
  const lateMasks: string[] = [];
  for (const entry of plan.denyEntries) {
    if (boundTargets.some((target) => isSameOrInside(target, entry.path)))
      lateMasks.push(...maskArguments(entry));
    else args.push(...maskArguments(entry));
  }
  args.push('--bind', layout.tmp, '/tmp');
  // -try: a HOME that does not exist has nothing to show.
  for (const target of readOnlyExposures) args.push('--ro-bind-try', target, target);
  for (const root of plan.writable) args.push('--bind', root, root);
  for (const entry of plan.protectedEntries) {
    const source = entry.exists
      ? entry.path
      : entry.kind === 'directory'
        ? layout.emptyDirectory
        : layout.emptyFile;
    args.push('--ro-bind', source, entry.path);
  }
  args.push(...lateMasks);
  for (const name of input.unsetEnv) args.push('--unsetenv', name);
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', input.cwd);
  if (input.jsonStatusFd !== undefined) args.push('--json-status-fd', String(input.jsonStatusFd));
  if (input.seccompFd !== undefined) args.push('--seccomp', String(input.seccompFd));
  args.push('--', ...input.argv);
  return args;
}
