import { SafeturnError } from '../errors/safeturn-error.js';
import {
  type DetectSandboxSupportOptions,
  detectSandboxSupport,
  type SandboxSupport,
} from './sandbox-support.js';

/** What {@link sandboxCheck} found (used by `safeturn doctor`). */
export interface SandboxCheckReport {
  /** True when commands can be sandboxed here. */
  available: boolean;
  platform: NodeJS.Platform;
  /** The detected support when available. */
  support?: SandboxSupport;
  /** When unavailable: the error code and message (cause and fix). */
  problem?: { code: string; cause: string; message: string };
  /** One line per finding, for humans. */
  lines: string[];
}

/**
 * Reports whether the sandbox works here and with what, without throwing for an unavailable
 * sandbox (that is a finding). Runs the same detection and preflight probe as a real run.
 *
 * @returns a {@link SandboxCheckReport}.
 * @throws only unexpected host failures (never SANDBOX_UNAVAILABLE).
 * @example
 * ```ts
 * const report = await sandboxCheck();
 * console.log(report.lines.join('\n'));
 * ```
 */
export async function sandboxCheck(options: DetectSandboxSupportOptions = {}): Promise<SandboxCheckReport> {
  const platform = options.platform ?? process.platform;
  try {
    const support = await detectSandboxSupport(options);
    const lines =
      support.platform === 'linux'
        ? [
            `sandbox: bubblewrap ${support.version} at ${support.bwrapPath}`,
            'preflight probe: ok (user, pid, ipc and network namespaces; /proc; loopback; seccomp)',
            `seccomp unix-socket filter: ${support.architecture}`,
            `--disable-userns: ${support.features.disableUserns ? 'yes' : 'no (bwrap < 0.8)'}; --argv0: ${support.features.argv0 ? 'yes' : 'no (bwrap < 0.9)'}`,
          ]
        : [`sandbox: Seatbelt via ${support.sandboxExecPath}`];
    return { available: true, platform, support, lines };
  } catch (error) {
    if (!SafeturnError.isInstance(error) || error.code !== 'SANDBOX_UNAVAILABLE') throw error;
    const cause = String(error.data.cause);
    return {
      available: false,
      platform,
      problem: { code: error.code, cause, message: error.message },
      lines: [`sandbox: unavailable (${cause}): ${error.message}`],
    };
  }
}
