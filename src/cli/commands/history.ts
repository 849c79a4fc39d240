import type { Command } from 'commander';
import { formatRestoreReport, formatRollbackPoints } from '../../loop/format.js';
import { replay } from '../../loop/replay.js';
import { createSessionTools } from '../../loop/session-tools.js';
import { CliError } from '../cli-error.js';
import { type CommonOptions, openSession } from '../context.js';
import { createOutput, EXIT } from '../output.js';
import { readReplayFile } from '../read-replay-file.js';
import { withCommon } from './with-common.js';

/**
 * The rollback point a `rewind` goes to: a point number (1 = newest) or `--turn ID`, not both.
 * @throws CliError `USAGE` when neither, both, or a number that is not a whole number >= 1.
 */
function rewindTarget(number: string | undefined, turn: string | undefined): number | string {
  if (number !== undefined && turn !== undefined)
    throw new CliError('USAGE', 'rewind takes a rollback point number or --turn ID, not both.');
  if (turn !== undefined) return turn;
  if (number === undefined)
    throw new CliError('USAGE', 'rewind needs a rollback point number (see `safeturn log`) or --turn ID.');
  if (!/^[1-9]\d*$/.test(number))
    throw new CliError(
      'USAGE',
      `rewind: ${JSON.stringify(number)} is not a rollback point number (1 = newest).`,
    );
  return Number(number);
}

/** `safeturn log`, `rewind`, `redo`, `replay`. Each action resolves to an exit code. */
export function registerHistoryCommands(program: Command, setExit: (code: number) => void): void {
  withCommon(
    program.command('log').description('list rollback points, newest first, numbered from 1'),
  ).action(async (options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    const points = session.rollbackPoints();
    for (const point of points) out.record('rollback-point', { session: session.id, ...point });
    out.say(`Session ${session.id} (${session.workspace})\n${formatRollbackPoints(points)}`);
    setExit(EXIT.done);
  });

  withCommon(
    program
      .command('rewind')
      .description('put the workspace back as it was before a turn (and undo every later turn)')
      .argument('[number]', 'a rollback point number from `safeturn log` (1 = newest)')
      .option('-t, --turn <id>', 'rewind to before this turn id instead of a number')
      .option('-f, --force', 'overwrite files changed since the agent wrote them (redo brings them back)')
      .option('-n, --dry-run', 'show what would change, write nothing'),
  ).action(
    async (
      number: string | undefined,
      options: CommonOptions & { turn?: string; force?: boolean; dryRun?: boolean },
    ) => {
      const out = createOutput(options.json ?? false);
      const target = rewindTarget(number, options.turn);
      const session = await openSession(options);
      const result = await session.rewind(target, {
        force: options.force ?? false,
        dryRun: options.dryRun ?? false,
      });
      await session.close();
      out.record('restore-report', { session: session.id, kind: 'rewind', ...result });
      out.say(formatRestoreReport(result));
      setExit(result.failed.length > 0 ? EXIT.partial : EXIT.done);
    },
  );

  withCommon(
    program
      .command('redo')
      .description('undo the last rewind')
      .option('-f, --force', 'overwrite files changed since the rewind')
      .option('-n, --dry-run', 'show what would change, write nothing'),
  ).action(async (options: CommonOptions & { force?: boolean; dryRun?: boolean }) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options);
    const result = await session.redo({ force: options.force ?? false, dryRun: options.dryRun ?? false });
    await session.close();
    out.record('restore-report', { session: session.id, kind: 'redo', ...result });
    out.say(formatRestoreReport(result, 'Redid'));
    setExit(result.failed.length > 0 ? EXIT.partial : EXIT.done);
  });

  withCommon(
    program
      .command('replay')
      .description(
        'replay a recorded agent session (JSON Lines: {"turn","label","tool","input"}) through the wrapped reference tools, into a new session (or --session ID, resumed or started)',
      )
      .argument('<file>', 'the recorded session, .jsonl'),
  ).action(async (file: string, options: CommonOptions) => {
    const out = createOutput(true);
    const lines = await readReplayFile(file);
    const session = await openSession(options, 'new');
    out.warn(`Replaying ${lines.length} call(s) into session ${session.id}.`);
    const tools = createSessionTools(session);
    try {
      await replay({ session, tools, lines, onCall: (result) => out.record('call', { ...result }) });
    } finally {
      await session.close();
    }
    out.warn(`Replayed ${lines.length} call(s) into session ${session.id}.`);
    setExit(EXIT.done);
  });
}
