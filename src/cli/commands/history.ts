import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { formatRestoreReport, formatRollbackPoints } from '../../loop/format.js';
import { parseReplay, replay } from '../../loop/replay.js';
import { createSessionTools } from '../../loop/session-tools.js';
import { type CommonOptions, openSession } from '../context.js';
import { createOutput, EXIT } from '../output.js';
import { withCommon } from './with-common.js';

/** `safeturn log`, `rewind`, `redo`, `replay`. Each action resolves to an exit code. */
export function registerHistoryCommands(program: Command, setExit: (code: number) => void): void {
  withCommon(
    program.command('log').description('list rollback points, newest first, numbered from 1'),
  ).action(async (options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options);
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
      const target = options.turn ?? (number === undefined ? undefined : Number(number));
      if (target === undefined || (typeof target === 'number' && !Number.isInteger(target))) {
        out.warn('rewind needs a rollback point number (see `safeturn log`) or --turn ID.');
        setExit(EXIT.didNotRun);
        return;
      }
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
        'replay a recorded agent session (JSON Lines: {"turn","label","tool","input"}) through the wrapped reference tools',
      )
      .argument('<file>', 'the recorded session, .jsonl'),
  ).action(async (file: string, options: CommonOptions) => {
    const out = createOutput(true);
    const lines = parseReplay(await readFile(file, 'utf8'));
    const session = await openSession(options, true);
    const tools = createSessionTools(session);
    await replay({
      session,
      tools,
      lines,
      onCall: (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    });
    await session.close();
    out.warn(`Replayed ${lines.length} call(s) into session ${session.id}.`);
    setExit(EXIT.done);
  });
}
