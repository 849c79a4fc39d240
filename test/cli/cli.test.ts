import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, tempDir } from '../helpers.js';
import { safeturn } from './run-cli.js';

describe('safeturn CLI', () => {
  it('replay of a multi-turn session on a copy of a real folder, then rewind --turn <first> restores it byte for byte', async () => {
    const base = await tempDir();
    const workspace = path.join(base, 'project');
    await cp(path.resolve('src'), workspace, { recursive: true });
    const original = await snapshot(workspace);
    const home = path.join(base, 'home');
    const lines = [
      {
        turn: 'first',
        label: 'Rename the error base',
        tool: 'read',
        input: { path: 'errors/safeturn-error.ts' },
      },
      {
        turn: 'first',
        tool: 'edit',
        input: {
          path: 'errors/safeturn-error.ts',
          old_string: "this.name = 'SafeturnError';",
          new_string: "this.name = 'BaseError';",
        },
      },
      { turn: 'first', tool: 'write', input: { path: 'notes/plan.md', content: '# plan\n' } },
      {
        turn: 'second',
        label: 'Touch more',
        tool: 'edit',
        input: { path: 'index.ts', old_string: 'x', new_string: 'y' },
      },
      { turn: 'second', tool: 'read', input: { path: 'index.ts' } },
      { turn: 'second', tool: 'write', input: { path: 'index.ts', content: 'export {};\n' } },
      { turn: 'second', tool: 'frobnicate', input: {} },
      {
        turn: 'third',
        label: 'Again',
        tool: 'write',
        input: { path: 'notes/plan.md', content: '# plan v2\n' },
      },
      {
        turn: 'third',
        tool: 'write',
        input: { path: 'deep/new/dir/file.ts', content: 'export const a = 1;\n' },
      },
    ];
    const recording = path.join(base, 'session.jsonl');
    await writeFile(recording, lines.map((line) => JSON.stringify(line)).join('\n'));
    const replayed = await safeturn([
      'replay',
      recording,
      '--workspace',
      workspace,
      '--session',
      'rec',
      '--home',
      home,
    ]);
    expect(replayed.code).toBe(0);
    const calls = replayed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(calls).toHaveLength(9);
    expect(calls[3]).toMatchObject({
      turn: 'second',
      tool: 'edit',
      ok: false,
      error: { code: 'GUARD_NEVER_READ' },
    });
    expect(calls[6]).toMatchObject({ tool: 'frobnicate', ok: false, error: { code: 'UNKNOWN_TOOL' } });
    expect(calls.filter((call) => call.ok)).toHaveLength(7);

    const log = await safeturn(['log', '--workspace', workspace, '--home', home, '--json']);
    expect(log.code).toBe(0);
    const points = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(points.map((point) => [point.v, point.number, point.turnId])).toEqual([
      [1, 1, 'third'],
      [1, 2, 'second'],
      [1, 3, 'first'],
    ]);
    expect(points[2].files).toEqual(['errors/safeturn-error.ts', 'notes/plan.md']);

    const rewound = await safeturn([
      'rewind',
      '--turn',
      'first',
      '--workspace',
      workspace,
      '--home',
      home,
      '--json',
    ]);
    expect(rewound.code).toBe(0);
    const report = JSON.parse(rewound.stdout.trim());
    expect(report).toMatchObject({
      v: 1,
      type: 'restore-report',
      kind: 'rewind',
      turns: ['first', 'second', 'third'],
      failed: [],
    });
    expect(await snapshot(workspace)).toEqual(original);

    const redo = await safeturn(['redo', '--workspace', workspace, '--home', home]);
    expect(redo.code).toBe(0);
    expect(await readFile(path.join(workspace, 'index.ts'), 'utf8')).toBe('export {};\n');
  });

  it('exit codes: 2 for bad usage and a missing turn, with the reason on stderr', async () => {
    const workspace = await tempDir();
    const home = await tempDir();
    const noSession = await safeturn(['log', '--workspace', workspace, '--home', home]);
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain('No safeturn session');
    const recording = path.join(await tempDir(), 'rec.jsonl');
    await writeFile(
      recording,
      `${JSON.stringify({ turn: 't', tool: 'write', input: { path: 'a', content: 'a' } })}\n`,
    );
    expect((await safeturn(['replay', recording, '--workspace', workspace, '--home', home])).code).toBe(0);
    const missing = await safeturn(['rewind', '7', '--workspace', workspace, '--home', home, '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ v: 1, type: 'error', code: 'NO_SUCH_TURN' });
    expect((await safeturn(['rewind', '--workspace', workspace, '--home', home])).code).toBe(2);
    expect((await safeturn(['no-such-command'])).code).toBe(2);
  });

  it('the demo prints safeturn matching and every git method differing', async () => {
    const result = await safeturn(['demo', '--json']);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => [row.method, row.matches])).toEqual([
      ['safeturn rewind', true],
      ['git checkout -- .', false],
      ['git stash -u', false],
      ['git checkout -- . && git clean -fd', false],
      ['git stash create (before) + reset --hard + stash apply', false],
    ]);
    expect(rows[1].differing).toEqual(['.env', 'index.html', 'theme.css']);
    expect(rows[3].differing).toEqual(['.env', 'index.html', 'notes.md']);
  });
});

describe('safeturn CLI: history, status, gc, doctor, sandbox, worktree', () => {
  it('history/diff/show read the shadow repository; status, gc and doctor report; exit codes hold', async () => {
    const base = await tempDir();
    const workspace = path.join(base, 'ws');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(workspace);
    await writeFile(path.join(workspace, 'a.txt'), 'one\n');
    const home = path.join(base, 'home');
    const recording = path.join(base, 'rec.jsonl');
    await writeFile(
      recording,
      [
        { turn: 't1', label: 'edit a', tool: 'read', input: { path: 'a.txt' } },
        { turn: 't1', tool: 'write', input: { path: 'a.txt', content: 'two\n' } },
        { turn: 't2', label: 'shell', tool: 'bash', input: { command: 'echo made > made.txt' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const common = ['--workspace', workspace, '--home', home];
    expect((await safeturn(['replay', recording, ...common, '--session', 's'])).code).toBe(0);
    const history = await safeturn(['history', ...common, '--json']);
    expect(history.code).toBe(0);
    const entries = history.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.map((entry) => [entry.turnId, entry.changedPaths])).toEqual([
      ['t2', ['made.txt']],
      ['t1', ['a.txt']],
    ]);
    const diff = await safeturn(['diff', 't1', ...common]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('-one\n+two');
    const shown = await safeturn(['show', 't1', 'a.txt', ...common]);
    expect(shown.stdout).toBe('two\n');
    expect((await safeturn(['show', 't1', 'made.txt', ...common])).code).toBe(2);
    expect((await safeturn(['diff', 'nope', ...common])).code).toBe(2);
    const status = await safeturn(['status', ...common, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      v: 1,
      type: 'status',
      session: 's',
      rollbackPoints: 2,
      lastCoverage: { turn: 't2', created: ['made.txt'] },
    });
    const gc = await safeturn(['gc', ...common, '--grace-ms', '0', '--json']);
    expect(gc.code).toBe(0);
    expect(JSON.parse(gc.stdout)).toMatchObject({ type: 'gc-report', deletedBlobs: 0 });
    const doctor = await safeturn(['doctor', ...common]);
    expect(doctor.stdout).toContain('journal: ok');
    expect((await safeturn(['worktree', 'list', ...common])).stdout).toContain('No worktrees.');
    const help = await safeturn(['rewind', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dry-run');
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    'sandbox run passes the exit code and blocks writes outside',
    async () => {
      const base = await tempDir();
      const workspace = path.join(base, 'ws');
      const { mkdir } = await import('node:fs/promises');
      await mkdir(workspace);
      const ok = await safeturn([
        'sandbox',
        'run',
        '--workspace',
        workspace,
        '--',
        'bash',
        '-c',
        `echo in > in.txt; echo out > ${base}/out.txt; exit 3`,
      ]);
      expect(ok.code).toBe(3);
      expect(await readFile(path.join(workspace, 'in.txt'), 'utf8')).toBe('in\n');
      await expect(readFile(path.join(base, 'out.txt'))).rejects.toThrow();
    },
  );
});
