import { Option } from 'commander';
import { UsageError } from '../errors/usage-error.js';
import { createSession } from '../loop/create-session.js';
import type { Session } from '../loop/session.js';
import { listSessions } from '../loop/session-discovery.js';
import { CliError } from './cli-error.js';

/** Options every command takes. */
export interface CommonOptions {
  workspace: string;
  session?: string;
  json?: boolean;
  home?: string;
}

/** Adds `--workspace`, `--session`, `--json` and `--home` to a command. */
export function commonOptions(): Option[] {
  return [
    new Option('-w, --workspace <dir>', 'the project directory').default(
      process.cwd(),
      'the current directory',
    ),
    new Option('-s, --session <id>', 'session id (default: the most recent session of the workspace)'),
    new Option('--json', 'versioned JSON Lines on stdout, prose on stderr'),
    new Option('--home <dir>', "safeturn's data directory (default: $SAFETURN_HOME or ~/.safeturn)"),
  ];
}

/** How {@link openSession} finds the session. */
export type SessionMode =
  /** `--session` must exist, else the most recent session; never creates one. */
  | 'existing'
  /** `--session` is resumed or started; without it, the most recent session, else a new one. */
  | 'latest-or-new'
  /** `--session` is resumed or started; without it, always a new session. */
  | 'new';

/**
 * Opens the session a command works on. Read-only commands use `existing`: a mistyped
 * `--session` is refused instead of silently starting an empty session. `access.readOnly`
 * opens it without the session lock (queries: log, status, history, diff, show).
 *
 * @throws CliError `NO_SUCH_SESSION` when `--session` names no session of the workspace (mode `existing`).
 * @throws UsageError `INVALID_INPUT` when the workspace has no session at all (mode `existing`).
 */
export async function openSession(
  options: CommonOptions,
  mode: SessionMode = 'existing',
  access: { readOnly?: boolean } = {},
): Promise<Session> {
  let sessionId = options.session;
  if (mode !== 'new' && (mode === 'existing' || sessionId === undefined)) {
    const known = await listSessions({
      workspace: options.workspace,
      ...(options.home ? { home: options.home } : {}),
    });
    if (sessionId !== undefined && mode === 'existing' && !known.some((item) => item.id === sessionId)) {
      throw new CliError(
        'NO_SUCH_SESSION',
        `No session ${JSON.stringify(sessionId)} for ${options.workspace}. ${
          known.length === 0
            ? 'The workspace has no sessions yet.'
            : `Known sessions, newest first: ${known.map((item) => item.id).join(', ')}.`
        }`,
        { data: { session: sessionId, known: known.map((item) => item.id) } },
      );
    }
    if (sessionId === undefined) {
      if (known[0] === undefined && mode === 'existing') {
        throw new UsageError(
          'INVALID_INPUT',
          `No safeturn session found for ${options.workspace}. Run an agent through safeturn (or \`safeturn replay\`) first.`,
        );
      }
      sessionId = known[0]?.id;
    }
  }
  return createSession({
    workspace: options.workspace,
    ...(sessionId ? { sessionId } : {}),
    ...(options.home ? { home: options.home } : {}),
    // Queries never take the session lock, so they work beside a live agent (or `safeturn mcp`).
    ...(access.readOnly ? { readOnly: true } : {}),
    ...(process.stderr.isTTY ? { onScanProgress: scanProgressLine } : {}),
  });
}

/** A progress line on stderr (a terminal) while a large workspace is scanned. */
function scanProgressLine(entries: number): void {
  process.stderr.write(`safeturn: scanning the workspace: ${entries.toLocaleString('en')} files so far…\n`);
}
