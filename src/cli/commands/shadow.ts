import type { Command } from 'commander';
import { UsageError } from '../../errors/usage-error.js';
import type { Session } from '../../loop/session.js';
import type { TurnReference } from '../../shadow-git/queries.js';
import { CliError } from '../cli-error.js';
import { type CommonOptions, openSession } from '../context.js';
import { createOutput, EXIT } from '../output.js';
import { parseCount } from '../parse-number.js';
import { withCommon } from './with-common.js';

/** The session's shadow history. @throws UsageError `INVALID_INPUT` when shadow git is off. */
function historyOf(session: Session): NonNullable<Session['history']> {
  if (!session.history) throw new UsageError('INVALID_INPUT', 'This workspace has no shadow history.');
  return session.history;
}

/** A turn id of the session, `SESSION/TURN`, or a commit id (4-40 hex). */
async function reference(session: Session, text: string): Promise<TurnReference> {
  const history = session.history;
  if (!history) throw new UsageError('INVALID_INPUT', 'This workspace has no shadow history.');
  const slash = text.indexOf('/');
  const candidate: TurnReference =
    slash > 0
      ? { sessionId: text.slice(0, slash), turnId: text.slice(slash + 1) }
      : { sessionId: session.id, turnId: text };
  try {
    await history.resolveTurn(candidate);
    return candidate;
  } catch (error) {
    if (/^[0-9a-f]{4,40}$/.test(text)) return text;
    throw new UsageError(
      'NO_SUCH_TURN',
      `No turn ${JSON.stringify(text)} in the shadow history of session ${session.id}.`,
      { cause: error },
    );
  }
}

/** `safeturn history`, `diff`, `show`: queries of the shadow git history. */
export function registerShadowCommands(program: Command, setExit: (code: number) => void): void {
  withCommon(
    program
      .command('history')
      .description('the shadow git history: every committed (or skipped) turn, newest first')
      .option('--path <path>', 'only turns that changed this path')
      .option('--limit <n>', 'at most this many entries', parseCount, 50)
      .option('--all-sessions', 'every session of the workspace, not only --session'),
  ).action(async (options: CommonOptions & { path?: string; limit: number; allSessions?: boolean }) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    await session.flush();
    const entries = await historyOf(session).log({
      ...(options.allSessions ? {} : { session: session.id }),
      ...(options.path ? { path: options.path } : {}),
      limit: options.limit,
    });
    for (const entry of entries) out.record('history-entry', { ...entry });
    out.say(
      entries
        .map(
          (entry) =>
            `${entry.commitId?.slice(0, 10) ?? '(skipped) '}  ${entry.sessionId ?? ''}/${entry.turnId ?? ''}  ${entry.kind}  ${entry.label}${entry.changedPaths.length > 0 ? `\n     ${entry.changedPaths.join(', ')}` : ''}${entry.reason ? ` (${entry.reason})` : ''}`,
        )
        .join('\n') || 'No history yet.',
    );
    setExit(EXIT.done);
  });

  withCommon(
    program
      .command('diff')
      .description('unified diff of a turn (against the state before it), or between two turns')
      .argument('<turn>', 'turn id of the session, SESSION/TURN, or a commit id')
      .argument('[to]', 'a later turn'),
  ).action(async (from: string, to: string | undefined, options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    await session.flush();
    const diff = await historyOf(session).diff({
      from: await reference(session, from),
      ...(to ? { to: await reference(session, to) } : {}),
    });
    out.record('diff', { from, to: to ?? null, diff });
    if (!out.json) process.stdout.write(diff);
    setExit(EXIT.done);
  });

  withCommon(
    program
      .command('show')
      .description('a file as it was at the end of a turn (bytes on stdout)')
      .argument('<turn>')
      .argument('<path>'),
  ).action(async (turn: string, file: string, options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    await session.flush();
    const entry = await historyOf(session).showEntry({ turn: await reference(session, turn), path: file });
    if (!entry)
      throw new CliError('NO_SUCH_PATH', `${file} did not exist at turn ${turn}.`, {
        data: { path: file, turn },
      });
    if (out.json)
      out.record('file', {
        path: file,
        mode: entry.executable ? '100755' : entry.isSymlink ? '120000' : '100644',
        base64: Buffer.from(entry.bytes).toString('base64'),
      });
    else process.stdout.write(entry.bytes);
    setExit(EXIT.done);
  });
}
