import type { RewindResult } from '../checkpoint/checkpoint-store.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import {
  handleSandbox as handleSandboxPolicy,
  type SandboxCommandResult,
} from '../sandbox/handle-sandbox.js';
import { SandboxModeSchema } from '../sandbox/policy-schema.js';
import { formatRestoreReport, formatRollbackPoints } from './format.js';
import type { Session } from './session.js';
import type { RollbackPoint } from './session-options.js';

/** What `/rewind` returns: plain text a CLI or TUI prints as is, and data a web UI renders. */
export interface RewindCommandResult {
  text: string;
  data:
    | { ok: true; action: 'list'; points: RollbackPoint[] }
    | { ok: true; action: 'rewind'; dryRun: boolean; report: RewindResult }
    | { ok: false; action: 'error'; code: string; message: string; paths?: string[] };
}

function parseArgs(args: string | string[]): string[] {
  return (Array.isArray(args) ? args : args.trim().split(/\s+/)).filter((part) => part !== '');
}

/**
 * The `/rewind` slash command. No arguments: the last 10 rollback points, newest first, each with
 * its number, label, time and touched files. `N`: rewinds to point N (and every later turn) and
 * returns the restore report. `N --dry-run`: what would change, nothing written. `N --force`:
 * overwrite files changed since the agent wrote them. Errors (no such point, a conflict) come back
 * as `data.ok === false`, never thrown, so a UI can show them.
 *
 * @param args - the text after `/rewind`, or its words.
 * @example
 * ```ts
 * console.log((await handleRewind(session, '')).text);
 * const { data } = await handleRewind(session, '2 --dry-run');
 * ```
 */
export async function handleRewind(
  session: Session,
  args: string | string[] = '',
): Promise<RewindCommandResult> {
  const words = parseArgs(args);
  const flags = new Set(words.filter((word) => word.startsWith('--')));
  const positional = words.filter((word) => !word.startsWith('--'));
  const unknown = [...flags].filter((flag) => flag !== '--dry-run' && flag !== '--force');
  if (positional.length === 0 && flags.size === 0) {
    const points = session.rollbackPoints().slice(0, 10);
    const text =
      points.length === 0
        ? 'No rollback points yet.'
        : `Rollback points (newest first; /rewind N goes back to before N):\n${formatRollbackPoints(points)}`;
    return { text, data: { ok: true, action: 'list', points } };
  }
  const number = Number(positional[0]);
  if (positional.length !== 1 || !Number.isInteger(number) || number < 1 || unknown.length > 0) {
    const message = 'Usage: /rewind [N] [--dry-run] [--force]   (N from the list, 1 = newest)';
    return { text: message, data: { ok: false, action: 'error', code: 'INVALID_INPUT', message } };
  }
  const dryRun = flags.has('--dry-run');
  try {
    const report = await session.rewind(number, { dryRun, force: flags.has('--force') });
    return { text: formatRestoreReport(report), data: { ok: true, action: 'rewind', dryRun, report } };
  } catch (error) {
    if (!SafeturnError.isInstance(error)) throw error;
    const paths = Array.isArray(error.data.paths) ? (error.data.paths as string[]) : undefined;
    const hint =
      error.code === 'REWIND_CONFLICT'
        ? `\nRun /rewind ${number} --force to overwrite them (redo brings them back).`
        : '';
    return {
      text: `${error.message}${hint}`,
      data: {
        ok: false,
        action: 'error',
        code: error.code,
        message: error.message,
        ...(paths ? { paths } : {}),
      },
    };
  }
}

/**
 * The `/sandbox` slash command for a session: no arguments shows the mode and what it allows;
 * `read-only`, `workspace-write` or `danger-full-access` switches (the next call uses it). A session
 * without a sandbox says so, and naming a mode turns the sandbox on with it.
 */
export async function handleSandbox(
  session: Session,
  args = '',
): Promise<SandboxCommandResult | { text: string; data: { ok: boolean; mode: 'off' } }> {
  let sandbox = session.sandbox;
  if (!sandbox) {
    const requested = SandboxModeSchema.safeParse(args.trim());
    if (!requested.success) {
      return {
        text:
          args.trim() === ''
            ? 'Sandbox: off (no policy for this session). /sandbox workspace-write turns it on.'
            : `Unknown sandbox mode ${JSON.stringify(args.trim())}. Usage: /sandbox [read-only | workspace-write | danger-full-access].`,
        data: { ok: args.trim() === '', mode: 'off' },
      };
    }
    sandbox = await session.enableSandbox({ mode: requested.data });
  }
  const holder = sandbox;
  return handleSandboxPolicy(
    { getPolicy: () => holder.policy, setPolicy: (policy) => holder.setPolicy(policy) },
    args,
  );
}
