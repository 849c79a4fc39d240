import type { SandboxPolicy } from './policy-schema.js';
import type { SandboxPlan } from './sandbox-plan.js';

/** Inputs of {@link buildSeatbeltInvocation}. */
export interface SeatbeltInput {
  policy: SandboxPolicy;
  plan: Pick<SandboxPlan, 'writable' | 'protectedEntries'>;
  /** Host path of the private temp dir ($TMPDIR). */
  temporaryDirectory: string;
  argv: readonly string[];
}

/** A sandbox-exec invocation: the profile text, its `-D` parameters and the full argument list. */
export interface SeatbeltInvocation {
  profile: string;
  /** `[name, value]` pairs passed as `-Dname=value`, in order. */
  parameters: [string, string][];
  /** Arguments for `/usr/bin/sandbox-exec`: `-p profile -Dk=v ... -- argv`. */
  args: string[];
  /** The temp dir as Seatbelt sees it (`/tmp/...` becomes `/private/tmp/...`): use it as $TMPDIR. */
  temporaryDirectory: string;
}

/**
 * macOS's /tmp, /var and /etc are symlinks into /private; Seatbelt matches real paths only.
 *
 * @param value - an absolute path.
 * @returns the path Seatbelt sees.
 * @example
 * ```ts
 * toSeatbeltPath('/tmp/x'); // '/private/tmp/x'
 * ```
 */
export function toSeatbeltPath(value: string): string {
  for (const prefix of ['/tmp', '/var', '/etc']) {
    if (value === prefix || value.startsWith(`${prefix}/`)) return `/private${value}`;
  }
  return value;
}

const BASE_RULES = `(version 1)
(deny default)

; processes the command starts stay in this sandbox
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow pseudo-tty)
(allow ipc-posix-sem)
(allow ipc-posix-shm-read-data)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.diagnosticd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.CoreServices.coreservicesd"))
(allow file-ioctl (literal "/dev/tty") (literal "/dev/null") (subpath "/dev/fd"))
(allow file-write-data
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper")
  (literal "/dev/stdout") (literal "/dev/stderr") (subpath "/dev/fd"))
(allow file-read-metadata)
`;

/**
 * Generates the Seatbelt profile for a policy. `(deny default)` comes first; every path is a
 * `-D` parameter (`(param "NAME")`), never pasted into the profile text; each policy field is
 * named in a comment so a reviewer sees where it went. Pure: the same inputs give the same bytes.
 *
 * @returns the profile, parameters and sandbox-exec arguments.
 * @example
 * ```ts
 * const { args } = buildSeatbeltInvocation({ policy, plan, temporaryDirectory: '/tmp/x', argv: ['bash', '-lc', 'ls'] });
 * ```
 */
export function buildSeatbeltInvocation(input: SeatbeltInput): SeatbeltInvocation {
  const { policy, plan } = input;
  const parameters: [string, string][] = [];
  const parameter = (name: string, value: string): string => {
    parameters.push([name, toSeatbeltPath(value)]);
    return `(param "${name}")`;
  };
  const lines: string[] = [BASE_RULES];
  lines.push(`; policy.mode = ${policy.mode}`);
  lines.push(
    `; policy.workspace, policy.writableRoots: WRITABLE_ROOT_* (${plan.writable.length} in this mode)`,
  );
  lines.push(
    '; policy.homeDirectory, policy.safeturnHome, policy.protectGit, policy.readOnlyPaths: READ_ONLY_*',
  );
  lines.push(`; policy.protectGit = ${policy.protectGit === true ? 'true' : "'hooks'"}`);
  lines.push(
    `; policy.allowEnv: ${policy.allowEnv.length} variable name(s) kept in the environment, not in this profile`,
  );

  lines.push('', '; policy.denyRead: reads everywhere except these');
  const denyReads = policy.denyRead.map(
    (denied, index) => `(require-not (subpath ${parameter(`DENY_READ_${index}`, denied)}))`,
  );
  lines.push(
    denyReads.length === 0
      ? '(allow file-read*)'
      : `(allow file-read*\n  (require-all\n    ${denyReads.join('\n    ')}))`,
  );

  lines.push('', '; the private temp dir ($TMPDIR)');
  const temporaryDirectory = toSeatbeltPath(input.temporaryDirectory);
  lines.push(`(allow file-write* (subpath ${parameter('TMPDIR', input.temporaryDirectory)}))`);

  const readOnly = plan.protectedEntries.map(
    (entry, index) => `(require-not (subpath ${parameter(`READ_ONLY_${index}`, entry.path)}))`,
  );
  lines.push(
    '',
    '; writable roots minus protected paths (.git, hooks, HOME rc files, safeturn home, config)',
  );
  plan.writable.forEach((root, index) => {
    const rootRule = `(subpath ${parameter(`WRITABLE_ROOT_${index}`, root)})`;
    lines.push(
      readOnly.length === 0
        ? `(allow file-write* ${rootRule})`
        : `(allow file-write*\n  (require-all\n    ${rootRule}\n    ${readOnly.join('\n    ')}))`,
    );
  });

  lines.push('', `; policy.network = ${policy.network}`);
  lines.push(
    policy.network
      ? '(allow network*)\n(allow system-socket)\n(allow mach-lookup (global-name "com.apple.dnssd.service"))'
      : '; no network rule: (deny default) refuses every socket, unix sockets included',
  );
  const profile = `${lines.join('\n')}\n`;
  const args = [
    '-p',
    profile,
    ...parameters.map(([name, value]) => `-D${name}=${value}`),
    '--',
    ...input.argv,
  ];
  return { profile, parameters, args, temporaryDirectory };
}
