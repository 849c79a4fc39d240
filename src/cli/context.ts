import { Option } from 'commander';
import { UsageError } from '../errors/usage-error.js';
import { createSession, type Session } from '../loop/session.js';
import { listSessions } from '../loop/session-discovery.js';

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

/**
 * Opens the session a command works on: `--session`, else the most recent one of the workspace.
 * @throws UsageError `NO_SUCH_TURN`-free: `INVALID_INPUT` when the workspace has no session.
 */
export async function openSession(options: CommonOptions, create = false): Promise<Session> {
  let sessionId = options.session;
  if (!sessionId) {
    const [latest] = await listSessions({
      workspace: options.workspace,
      ...(options.home ? { home: options.home } : {}),
    });
    if (!latest && !create) {
      throw new UsageError(
        'INVALID_INPUT',
        `No safeturn session found for ${options.workspace}. Run an agent through safeturn (or \`safeturn replay\`) first.`,
      );
    }
    sessionId = latest?.id;
  }
  return createSession({
    workspace: options.workspace,
    ...(sessionId ? { sessionId } : {}),
    ...(options.home ? { home: options.home } : {}),
  });
}
