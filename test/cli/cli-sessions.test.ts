import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, replayedWorkspace, safeturn, sessionDirs } from './run-cli.js';

describe('safeturn CLI: sessions', () => {
  it('a mistyped --session on a read-only command exits 2 with NO_SUCH_SESSION naming the known sessions, and creates nothing', async () => {
    const { home, common } = await replayedWorkspace('real');
    const before = await sessionDirs(home);
    expect(before.map((entry) => entry.split('/')[1])).toEqual(['real']);
    const commands = [
      ['log'],
      ['status'],
      ['history'],
      ['diff', 't1'],
      ['show', 't1', 'a.txt'],
      ['rewind', '1'],
      ['redo'],
      ['gc'],
      ['doctor'],
      ['worktree', 'list'],
    ];
    const results = await Promise.all(
      commands.map((command) => safeturn([...command, ...common, '--session', 'reall', '--json'])),
    );
    for (const [index, result] of results.entries()) {
      expect({ command: commands[index], code: result.code }).toEqual({ command: commands[index], code: 2 });
      expect(jsonLines(result.stdout).at(-1)).toMatchObject({
        v: 1,
        type: 'error',
        code: 'NO_SUCH_SESSION',
        data: { session: 'reall', known: ['real'] },
      });
      expect(result.stderr).toContain('safeturn: NO_SUCH_SESSION: No session "reall" for ');
      expect(result.stderr).toContain('Known sessions, newest first: real.');
    }
    expect(await sessionDirs(home)).toEqual(before);
  });

  it('replay without --session starts a new session each time, names it on stderr, and prints v/type call records', async () => {
    const { base, home, common } = await replayedWorkspace('real');
    const recording = path.join(base, 'more.jsonl');
    await writeFile(
      recording,
      `${JSON.stringify({ turn: 'x', label: 'more', tool: 'write', input: { path: 'b.txt', content: 'b\n' } })}\n${JSON.stringify({ turn: 'x', tool: 'nope', input: {} })}\n`,
    );
    const first = await safeturn(['replay', recording, ...common]);
    const second = await safeturn(['replay', recording, ...common]);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(jsonLines(first.stdout)).toEqual([
      { v: 1, type: 'call', turn: 'x', tool: 'write', ok: true },
      {
        v: 1,
        type: 'call',
        turn: 'x',
        tool: 'nope',
        ok: false,
        error: { code: 'UNKNOWN_TOOL', message: 'No tool named nope.' },
      },
    ]);
    const firstId = /Replaying 2 call\(s\) into session (\S+)\./.exec(first.stderr)?.[1];
    const secondId = /Replaying 2 call\(s\) into session (\S+)\./.exec(second.stderr)?.[1];
    expect(firstId).toBeDefined();
    expect(secondId).toBeDefined();
    expect(firstId).not.toBe(secondId);
    expect((await sessionDirs(home)).map((entry) => entry.split('/')[1]).sort()).toEqual(
      [firstId, secondId, 'real'].sort(),
    );
    // The turn id "x" went into the new sessions; the existing session still has only t1.
    const log = await safeturn(['log', ...common, '--session', 'real', '--json']);
    expect(jsonLines(log.stdout).map((point) => point.turnId)).toEqual(['t1']);
  });

  it('replay: a missing file and a numeric turn id are clean usage errors (exit 2, no stack), naming the file, line and field', async () => {
    const { base, common } = await replayedWorkspace('real');
    const missingFile = path.join(base, 'missing.jsonl');
    const missing = await safeturn(['replay', missingFile, ...common, '--json']);
    expect(missing.code).toBe(2);
    expect(jsonLines(missing.stdout)).toEqual([
      {
        v: 1,
        type: 'error',
        name: 'CliError',
        code: 'NO_SUCH_FILE',
        message: `Cannot read the replay file ${missingFile}: ENOENT: no such file or directory, open '${missingFile}'`,
        data: { path: missingFile },
      },
    ]);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const numeric = path.join(base, 'numeric.jsonl');
    await writeFile(numeric, `\n${JSON.stringify({ turn: 1, tool: 'read', input: { path: 'a.txt' } })}\n`);
    const bad = await safeturn(['replay', numeric, ...common]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      `safeturn: USAGE: ${numeric} line 2: field "turn": Invalid input: expected string, received number. A replay line is {"turn": string, "label"?: string, "tool": string, "input": object}.\n`,
    );
  });
});
