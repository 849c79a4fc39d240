import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { SandboxUnavailableError } from './sandbox-unavailable-error.js';
import { buildUnixSocketFilter, isSeccompArchitectureSupported } from './seccomp-filter.js';

/** What the installed bubblewrap can do, from `bwrap --version`. */
export interface BwrapFeatures {
  /** `--disable-userns` (0.8.0+): nested user namespaces are refused inside. */
  disableUserns: boolean;
  /** `--argv0` (0.9.0+). Not needed by safeturn; reported by `sandboxCheck()`. */
  argv0: boolean;
}

/** A platform on which the sandbox works, as found by {@link detectSandboxSupport}. */
export type SandboxSupport =
  | {
      platform: 'linux';
      /** Absolute path of bwrap. */
      bwrapPath: string;
      /** e.g. `0.8.0`. */
      version: string;
      features: BwrapFeatures;
      /** Node `process.arch` the seccomp filter is built for. */
      architecture: string;
    }
  | {
      platform: 'darwin';
      /** Absolute path of sandbox-exec: always `/usr/bin/sandbox-exec`. */
      sandboxExecPath: string;
    };

/** Options of {@link detectSandboxSupport}. */
export interface DetectSandboxSupportOptions {
  /** @default process.platform */
  platform?: NodeJS.Platform;
  /** @default process.arch */
  architecture?: string;
  /** An absolute bwrap path; when set, only this one is tried. @default the first of /usr/bin, /usr/local/bin, /bin, then absolute $PATH entries */
  bwrapPath?: string;
  /** Environment whose PATH is searched. @default process.env */
  env?: Record<string, string | undefined>;
  /** Run the preflight probe (a `true` in a namespace like the real one). @default true */
  probe?: boolean;
  abortSignal?: AbortSignal;
}

/** The oldest bubblewrap safeturn accepts (needs --cap-drop, --die-with-parent, --new-session, --remount-ro, --seccomp). */
export const MINIMUM_BWRAP_VERSION = '0.5.0';

const INSTALL_HINT =
  'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

function compareVersions(left: string, right: string): number {
  const a = left.split('.').map(Number);
  const b = right.split('.').map(Number);
  for (let index = 0; index < 3; index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findBwrap(options: DetectSandboxSupportOptions): Promise<string> {
  if (options.bwrapPath !== undefined) {
    if (!path.isAbsolute(options.bwrapPath)) {
      throw new SandboxUnavailableError(
        'bwrap-missing',
        `bwrap must be given by absolute path, not ${JSON.stringify(options.bwrapPath)}.`,
        {
          data: { bwrapPath: options.bwrapPath },
        },
      );
    }
    if (await isExecutable(options.bwrapPath)) return options.bwrapPath;
    throw new SandboxUnavailableError(
      'bwrap-missing',
      `bubblewrap is not installed at ${options.bwrapPath}. ${INSTALL_HINT}, or pass the right bwrapPath.`,
      {
        data: { bwrapPath: options.bwrapPath },
      },
    );
  }
  const searchPath = (options.env ?? process.env).PATH ?? '';
  const candidates = [
    '/usr/bin',
    '/usr/local/bin',
    '/bin',
    ...searchPath.split(':').filter((entry) => path.isAbsolute(entry)),
  ];
  for (const directory of candidates) {
    const candidate = path.join(directory, 'bwrap');
    if (await isExecutable(candidate)) return candidate;
  }
  throw new SandboxUnavailableError(
    'bwrap-missing',
    `bubblewrap (bwrap) was not found in /usr/bin, /usr/local/bin, /bin or PATH. ${INSTALL_HINT}.`,
    {
      data: { searched: candidates },
    },
  );
}

/** Flags the probe and every real run share, minus the mounts of the policy. */
export function namespaceFlags(features: BwrapFeatures, network: boolean): string[] {
  const flags = ['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (features.disableUserns) flags.push('--unshare-user', '--disable-userns');
  if (!network) flags.push('--unshare-net');
  return flags;
}

function explainProbeFailure(stderr: string): string {
  if (/namespace|uid map|setting up uid|Operation not permitted|No permissions/i.test(stderr)) {
    return 'user namespaces are refused here. Fix: enable them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in Docker run with --security-opt seccomp=unconfined or --privileged).';
  }
  if (/loopback|RTM_NEWADDR|netlink/i.test(stderr)) {
    return 'the network namespace loopback could not be set up. Fix: allow CAP_NET_ADMIN in user namespaces (container seccomp/AppArmor profile), or run on a host that permits network namespaces.';
  }
  if (/seccomp/i.test(stderr)) {
    return 'the seccomp filter could not be loaded. Fix: run on a kernel with CONFIG_SECCOMP_FILTER, or allow seccomp in the container profile.';
  }
  if (/proc/i.test(stderr)) {
    return '/proc could not be mounted in the new PID namespace. Fix: do not run under a masked /proc (Docker: --security-opt systempaths=unconfined), or run on the host.';
  }
  return 'the probe failed for an unknown reason; run the shown bwrap command by hand to see why.';
}

/**
 * Finds out whether the sandbox can run here, and with what: on Linux, bwrap by absolute path,
 * its version and features, then (by default) a preflight probe; on macOS, sandbox-exec.
 * Call it once and pass the result as `support` to `wrapCommand`/`runSandboxed` to skip the work.
 *
 * @returns a {@link SandboxSupport}.
 * @throws SandboxUnavailableError `SANDBOX_UNAVAILABLE` (data.cause: unsupported-platform, bwrap-missing,
 *   bwrap-too-old, seccomp-unsupported-arch, preflight-failed), with the fix in the message.
 * @example
 * ```ts
 * const support = await detectSandboxSupport(); // throws when there is no sandbox here
 * ```
 */
export async function detectSandboxSupport(
  options: DetectSandboxSupportOptions = {},
): Promise<SandboxSupport> {
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin') {
    const sandboxExecPath = '/usr/bin/sandbox-exec';
    if (!(await isExecutable(sandboxExecPath))) {
      throw new SandboxUnavailableError(
        'unsupported-platform',
        `${sandboxExecPath} is missing; Seatbelt is needed to sandbox commands on macOS.`,
      );
    }
    return { platform, sandboxExecPath };
  }
  if (platform !== 'linux') {
    throw new SandboxUnavailableError(
      'unsupported-platform',
      `The sandbox supports Linux (bubblewrap) and macOS (Seatbelt), not ${platform}. Run on one of those, or choose mode 'danger-full-access' explicitly.`,
      { data: { platform } },
    );
  }
  const architecture = options.architecture ?? process.arch;
  if (!isSeccompArchitectureSupported(architecture)) {
    throw new SandboxUnavailableError(
      'seccomp-unsupported-arch',
      `No seccomp syscall table for ${architecture}; the sandbox supports x64 and arm64.`,
      {
        data: { architecture },
      },
    );
  }
  const bwrapPath = await findBwrap(options);
  const versionRun = await execa(bwrapPath, ['--version'], {
    reject: false,
    ...(options.abortSignal ? { cancelSignal: options.abortSignal } : {}),
  });
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(versionRun.stdout)?.[1];
  if (versionRun.exitCode !== 0 || version === undefined) {
    throw new SandboxUnavailableError(
      'bwrap-missing',
      `${bwrapPath} --version failed (${versionRun.stderr.trim() || `exit ${versionRun.exitCode}`}). ${INSTALL_HINT}.`,
      {
        data: { bwrapPath },
      },
    );
  }
  if (compareVersions(version, MINIMUM_BWRAP_VERSION) < 0) {
    throw new SandboxUnavailableError(
      'bwrap-too-old',
      `bubblewrap ${version} at ${bwrapPath} is older than ${MINIMUM_BWRAP_VERSION}. Upgrade it.`,
      {
        data: { bwrapPath, version },
      },
    );
  }
  const features: BwrapFeatures = {
    disableUserns: compareVersions(version, '0.8.0') >= 0,
    argv0: compareVersions(version, '0.9.0') >= 0,
  };
  if (options.probe !== false) {
    const probeArgs = ['--ro-bind', '/', '/', '--dev', '/dev', ...namespaceFlags(features, false)];
    probeArgs.push('--proc', '/proc', '--seccomp', '3', '--', '/bin/true');
    const probe = await execa(bwrapPath, probeArgs, {
      reject: false,
      stdio: ['ignore', 'pipe', 'pipe', buildUnixSocketFilter(architecture)],
      timeout: 10_000,
      ...(options.abortSignal ? { cancelSignal: options.abortSignal } : {}),
    });
    if (probe.exitCode !== 0) {
      const stderr = probe.stderr.trim();
      throw new SandboxUnavailableError(
        'preflight-failed',
        `The bubblewrap preflight probe failed (${stderr || `exit ${probe.exitCode}`}): ${explainProbeFailure(stderr)}`,
        {
          data: { bwrapPath, version, args: probeArgs, stderr },
        },
      );
    }
  }
  return { platform: 'linux', bwrapPath, version, features, architecture };
}
