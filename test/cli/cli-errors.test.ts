import { existsSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/report-error.js';
import { RewindConflictError } from '../../src/errors/rewind-conflict-error.js';
import { tempDir } from '../helpers.js';
import { jsonLines, replayedWorkspace, safeturn } from './run-cli.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('safeturn CLI: errors', () => {
  it('reportError: a foreign error shows its message only, its stack with SAFETURN_DEBUG=1, and a JSON record with --json', () => {
    const error = Object.assign(new Error('disk on fire'), { code: 'EIO' });
    const quiet = { out: capture(), err: capture() };
    reportError(error, { json: true, stdout: quiet.out.stream, stderr: quiet.err.stream, env: {} });
    expect(quiet.err.text()).toBe('safeturn: disk on fire\n');
    expect(quiet.out.text()).toBe('{"v":1,"type":"error","code":"EIO","message":"disk on fire"}\n');
    const loud = { out: capture(), err: capture() };
    reportError(error, {
      json: false,
      stdout: loud.out.stream,
      stderr: loud.err.stream,
      env: { SAFETURN_DEBUG: '1' },
    });
    expect(loud.err.text()).toBe(`safeturn: disk on fire\n${error.stack}\n`);
    expect(loud.out.text()).toBe('');
    const conflict = { out: capture(), err: capture() };
    reportError(new RewindConflictError(['a.txt']), {
      json: false,
      stdout: conflict.out.stream,
      stderr: conflict.err.stream,
      env: {},
    });
    expect(conflict.err.text()).toBe(
      'safeturn: REWIND_CONFLICT: Rewind refused: 1 file(s) changed since the agent last wrote them: a.txt. Nothing was written; pass force: true to overwrite them. On the command line: use --force.\n',
    );
  });

  it('with --json, usage errors (missing argument, unknown option, bad number, number and --turn) print an error record on stdout, exit 2', async () => {
    const { common } = await replayedWorkspace('s');
    const cases: [string[], string][] = [
      [['diff'], 'commander.missingArgument'],
      [['log', '--bogus'], 'commander.unknownOption'],
      [['gc', '--grace-ms', 'soon'], 'commander.invalidArgument'],
      [['history', '--limit', '-3'], 'commander.invalidArgument'],
      [['worktree', 'merge', 'x', '--strategy', 'mine'], 'commander.invalidArgument'],
    ];
    const results = await Promise.all(cases.map(([args]) => safeturn([...args, ...common, '--json'])));
    for (const [index, result] of results.entries()) {
      expect({ args: cases[index]![0], code: result.code }).toEqual({ args: cases[index]![0], code: 2 });
      const records = jsonLines(result.stdout);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        v: 1,
        type: 'error',
        code: 'USAGE',
        data: { commander: cases[index]![1] },
      });
      expect(records[0]!.message).toEqual(expect.any(String));
    }
    const both = await safeturn(['rewind', '1', '--turn', 't1', ...common, '--json']);
    expect(both.code).toBe(2);
    expect(jsonLines(both.stdout)).toEqual([
      {
        v: 1,
        type: 'error',
        name: 'CliError',
        code: 'USAGE',
        message: 'rewind takes a rollback point number or --turn ID, not both.',
        data: {},
      },
    ]);
    const fraction = await safeturn(['rewind', '1.5', ...common]);
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).toBe(
      'safeturn: USAGE: rewind: "1.5" is not a rollback point number (1 = newest).\n',
    );
    const help = await safeturn(['sandbox', 'run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replaceAll(/\s+/g, ' ')).toContain(
      "One argument is a shell string (`-- 'echo $HOME && ls'`); several are an argv, each word quoted",
    );
    const nothing = await safeturn(['show', 't1', 'never.txt', ...common, '--json']);
    expect(nothing.code).toBe(2);
    expect(jsonLines(nothing.stdout)[0]).toMatchObject({
      type: 'error',
      code: 'NO_SUCH_PATH',
      data: { path: 'never.txt', turn: 't1' },
    });
  });

  it('a rewind conflict on the command line says use --force; --force then rewinds', async () => {
    const { workspace, common } = await replayedWorkspace('s');
    await writeFile(path.join(workspace, 'a.txt'), 'mine\n');
    const refused = await safeturn(['rewind', '1', ...common]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a.txt');
    expect(refused.stderr).toMatch(/On the command line: use --force\.\n$/);
    const forced = await safeturn(['rewind', '1', '--force', ...common, '--json']);
    expect(forced.code).toBe(0);
  });

  it('doctor counts torn journal lines as a problem (exit 1) and names their line numbers', async () => {
    const { home, common } = await replayedWorkspace('s');
    const { readdir } = await import('node:fs/promises');
    const [project] = await readdir(path.join(home, 'projects'));
    const journal = path.join(home, 'projects', project!, 'sessions', 's', 'journal.jsonl');
    const clean = await safeturn(['doctor', ...common]);
    expect(clean.stdout).toContain('journal: ok');
    expect(clean.code).toBe(existsSync('/usr/bin/bwrap') ? 0 : 1);
    await appendFile(journal, '{"torn":\n');
    const doctor = await safeturn(['doctor', ...common]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/journal: 1 torn or invalid line\(s\) skipped, at line numbers \d+ of /);
    expect(doctor.stdout).toContain(journal);
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    'sandbox run: one argument is a shell string, several are a quoted argv; --json puts the output in the record',
    async () => {
      const base = await tempDir();
      const workspace = path.join(base, 'ws');
      await mkdir(workspace);
      const shell = await safeturn([
        'sandbox',
        'run',
        '--workspace',
        workspace,
        '--json',
        '--',
        'echo one && echo two',
      ]);
      expect(shell.code).toBe(0);
      expect(jsonLines(shell.stdout)).toEqual([
        expect.objectContaining({
          v: 1,
          type: 'sandbox-run',
          command: 'echo one && echo two',
          stdout: 'one\ntwo\n',
          stderr: '',
          exitCode: 0,
        }),
      ]);
      const argv = await safeturn([
        'sandbox',
        'run',
        '--workspace',
        workspace,
        '--',
        'printf',
        '%s|',
        'a b',
        "it's",
        '$HOME',
      ]);
      expect(argv.code).toBe(0);
      expect(argv.stdout).toBe("a b|it's|$HOME|");
    },
  );
});
