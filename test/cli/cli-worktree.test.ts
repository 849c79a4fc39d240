import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { jsonLines, safeturn } from './run-cli.js';

describe('safeturn CLI: worktree', () => {
  it('worktree list and merge print readable lines; an unknown name gives the CLI spelling; rewind 1 undoes the merge', async () => {
    const base = await tempDir();
    const workspace = path.join(base, 'ws');
    await mkdir(workspace);
    await writeFile(path.join(workspace, 'a.txt'), 'one\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'init');
    const home = path.join(base, 'home');
    const common = ['--workspace', workspace, '--home', home];
    const recording = path.join(base, 'rec.jsonl');
    await writeFile(
      recording,
      [
        { turn: 't1', label: 'try it', tool: 'worktree_create', input: { name: 'try' } },
        { turn: 't1', tool: 'write', input: { path: 'b.txt', content: 'new\n' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const replayed = await safeturn(['replay', recording, ...common, '--session', 's']);
    expect(jsonLines(replayed.stdout).map((call) => call.ok)).toEqual([true, true]);

    const list = await safeturn(['worktree', 'list', ...common]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^try {2}\S+ {2}active, owner gone: merge or discard it, 1 changed file\(s\), created \d{4}-\d\d-\d\dT[\d:.]+Z$/,
    );
    expect(lines[1]).toMatch(/^ {2}path: \//);
    expect(lines[2]).toBe('  changed: b.txt');
    expect(list.stdout).not.toContain('{');

    const unknown = await safeturn(['worktree', 'merge', 'nope', ...common]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('worktree_list (`safeturn worktree list`)');

    const merged = await safeturn(['worktree', 'merge', 'try', ...common]);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(
      /^Merged worktree try \(\S+\): 1 file\(s\) changed in your folder, uncommitted\. `safeturn rewind 1` undoes the merge\.\n {2}written {2}b\.txt\n$/,
    );
    expect(await readFile(path.join(workspace, 'b.txt'), 'utf8')).toBe('new\n');
    const rewound = await safeturn(['rewind', '1', ...common, '--json']);
    expect(rewound.code).toBe(0);
    await expect(readFile(path.join(workspace, 'b.txt'))).rejects.toThrow();
  });
});
