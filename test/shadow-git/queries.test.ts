import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openShadowRepo, type ShadowRepo } from '../../src/shadow-git/index.js';
import { bytes, fsck, makeDirs, shadowGit, steppingClock, type TestDirs, walkWorkspace } from './helpers.js';

let dirs: TestDirs;
let repo: ShadowRepo | undefined;

beforeEach(async () => {
  dirs = await makeDirs();
});
afterEach(async () => {
  await repo?.close();
  repo = undefined;
  await dirs.cleanup();
});

async function write(relative: string, content: string): Promise<void> {
  const absolute = path.join(dirs.workspace, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
}

async function turn(
  sessionId: string,
  turnId: number,
  label: string,
  files: Record<string, string | null>,
): Promise<string> {
  for (const [relative, content] of Object.entries(files)) {
    if (content === null) await rm(path.join(dirs.workspace, relative), { force: true });
    else await write(relative, content);
  }
  return (await repo!.commitTurn({ sessionId, turnId, label, paths: Object.keys(files) })).committed;
}

describe('queries', () => {
  it('log lists turns newest first with changed paths; filters by session and path; limit', async () => {
    await write('a.txt', 'a0\n');
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(),
      baselinePaths: ['a.txt'],
    });
    const c1 = await turn('s1', 1, 'first', { 'a.txt': 'a1\n', 'src/x.ts': 'x1\n' });
    const c2 = await turn('s1', 2, 'second', { 'b.txt': 'b2\n' });
    const c3 = await turn('s2', 1, 'other session', { 'src/x.ts': 'x2\n' });
    await repo.recordSkipped({ sessionId: 's1', turnId: 3, label: 'in worktree', reason: 'worktree-active' });

    const all = await repo.log();
    expect(
      all.map((entry) => [entry.kind, entry.sessionId, entry.turnId, entry.commitId, entry.changedPaths]),
    ).toEqual([
      ['skipped', 's1', '3', undefined, []],
      ['turn', 's2', '1', c3, ['src/x.ts']],
      ['turn', 's1', '2', c2, ['b.txt']],
      ['turn', 's1', '1', c1, ['a.txt', 'src/x.ts']],
      ['baseline', undefined, undefined, await repo.baselineId(), []],
    ]);
    expect(all[0]).toMatchObject({
      label: 'in worktree',
      reason: 'worktree-active',
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, 6)),
    });
    expect(all[1]).toMatchObject({
      label: 'other session',
      parentId: c2,
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)),
    });
    expect((await repo.log({ session: 's1' })).map((entry) => entry.turnId)).toEqual(['3', '2', '1']);
    expect((await repo.log({ path: 'src/x.ts' })).map((entry) => entry.commitId)).toEqual([c3, c1]);
    expect((await repo.log({ path: 'src' })).map((entry) => entry.commitId)).toEqual([c3, c1]);
    expect((await repo.log({ path: 'a.txt' })).map((entry) => entry.kind)).toEqual(['turn', 'baseline']);
    expect((await repo.log({ limit: 2 })).map((entry) => entry.kind)).toEqual(['skipped', 'turn']);
    // The session's ref is a real git history: first parents walk back to the baseline.
    const gitLog = await shadowGit(repo.gitdir, dirs.userHome, ['log', '--format=%H %s', 'refs/safeturn/s2']);
    expect(
      gitLog
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[0]),
    ).toEqual([c3, c2, c1, await repo.baselineId()]);
  });

  it('a skipped turn is durable and a torn line of the skip log is ignored', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    await repo.recordSkipped({ sessionId: 's1', turnId: 1, reason: 'worktree-active' });
    await writeFile(path.join(repo.gitdir, 'safeturn', 'skipped.jsonl'), '\n{"sessionId":"s1","tu', {
      flag: 'a',
    });
    await repo.close();
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(Date.UTC(2026, 1, 1)),
    });
    await repo.recordSkipped({ sessionId: 's1', turnId: 2, reason: 'worktree-active' });
    expect((await repo.log()).map((entry) => [entry.kind, entry.turnId, entry.label])).toEqual([
      ['skipped', '2', 'turn 2'],
      ['skipped', '1', 'turn 1'],
    ]);
  });

  it('diff gives a turn its own unified diff, or the diff between two turns', async () => {
    await write('a.txt', 'one\ntwo\nthree\n');
    await write('gone.txt', 'bye\n');
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    await repo.ensureBaseline({ paths: ['a.txt', 'gone.txt'] });
    await turn('s1', 1, 'edit', { 'a.txt': 'one\n2\nthree\n', 'gone.txt': null, 'new.txt': 'hello' });
    await chmod(path.join(dirs.workspace, 'a.txt'), 0o755);
    await write('bin.dat', '\0\u0001binary');
    await symlink('a.txt', path.join(dirs.workspace, 'ln'));
    await repo.commitTurn({ sessionId: 's1', turnId: 2, paths: ['a.txt', 'bin.dat', 'ln'] });

    expect(await repo.diff({ from: { sessionId: 's1', turnId: 1 } })).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+2',
        ' three',
        'diff --git a/gone.txt b/gone.txt',
        'deleted file mode 100644',
        '--- a/gone.txt',
        '+++ /dev/null',
        '@@ -1,1 +0,0 @@',
        '-bye',
        'diff --git a/new.txt b/new.txt',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/new.txt',
        '@@ -0,0 +1,1 @@',
        '+hello',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    expect(await repo.diff({ from: { sessionId: 's1', turnId: 2 } })).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        'old mode 100644',
        'new mode 100755',
        'diff --git a/bin.dat b/bin.dat',
        'new file mode 100644',
        'Binary files /dev/null and b/bin.dat differ',
        'diff --git a/ln b/ln',
        'new file mode 120000',
        '--- /dev/null',
        '+++ b/ln',
        '@@ -0,0 +1,1 @@',
        '+a.txt',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    const between = await repo.diff({
      from: await repo.baselineId().then((id) => id!),
      to: { sessionId: 's1', turnId: 2 },
    });
    expect(between.match(/^diff --git .*$/gm)).toEqual([
      'diff --git a/a.txt b/a.txt',
      'diff --git a/bin.dat b/bin.dat',
      'diff --git a/gone.txt b/gone.txt',
      'diff --git a/ln b/ln',
      'diff --git a/new.txt b/new.txt',
    ]);
    // Real git agrees on which files changed between the same commits.
    const names = await shadowGit(repo.gitdir, dirs.userHome, [
      'diff',
      '--name-only',
      (await repo.baselineId())!,
      'refs/safeturn/s1',
    ]);
    expect(names).toBe('a.txt\nbin.dat\ngone.txt\nln\nnew.txt\n');
    await expect(repo.diff({ from: { sessionId: 's1', turnId: 9 } })).rejects.toMatchObject({
      code: 'NO_SUCH_TURN',
    });
  });

  it('show and showEntry give bytes, mode and symlink flag as of a turn', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    await turn('s1', 1, 'v1', { 'f.sh': 'v1\n' });
    await chmod(path.join(dirs.workspace, 'f.sh'), 0o755);
    await symlink('f.sh', path.join(dirs.workspace, 'ln'));
    await turn('s1', 2, 'v2', { 'f.sh': 'v2\n' });
    await repo.commitTurn({ sessionId: 's1', turnId: 3, paths: ['ln', 'f.sh'] });
    expect(await repo.show({ turn: { sessionId: 's1', turnId: 1 }, path: 'f.sh' })).toEqual(bytes('v1\n'));
    expect(await repo.showEntry({ turn: { sessionId: 's1', turnId: 1 }, path: 'f.sh' })).toMatchObject({
      mode: 0o100644,
      executable: false,
      isSymlink: false,
    });
    expect(await repo.showEntry({ turn: { sessionId: 's1', turnId: 3 }, path: 'ln' })).toEqual({
      bytes: bytes('f.sh'),
      mode: 0o120000,
      isSymlink: true,
      executable: false,
    });
    expect(await repo.show({ turn: { sessionId: 's1', turnId: 1 }, path: 'ln' })).toBeUndefined();
    expect(
      await repo.show({ turn: { sessionId: 's1', turnId: 1 }, path: 'missing/deep.txt' }),
    ).toBeUndefined();
    const commit = await repo.resolveTurn({ sessionId: 's1', turnId: 3 });
    expect(await repo.show({ turn: commit.slice(0, 10), path: 'f.sh' })).toEqual(bytes('v2\n'));
  });

  it('history survives a rewind: the rewind is a new commit, nothing is rewritten (rule B)', async () => {
    await write('f.txt', 'v0\n');
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(),
      baselinePaths: ['f.txt'],
    });
    const c1 = await turn('s1', 1, 'v1', { 'f.txt': 'v1\n', 'n.txt': 'new\n' });
    const c2 = await turn('s1', 2, 'v2', { 'f.txt': 'v2\n' });
    // The checkpoint layer rewinds turn 1 on disk; the session then commits the rewind as a turn.
    const c3 = await turn('s1', 3, 'rewind to before turn 1', { 'f.txt': 'v0\n', 'n.txt': null });
    expect((await repo.log()).map((entry) => entry.commitId)).toEqual([c3, c2, c1, await repo.baselineId()]);
    expect(await repo.show({ turn: c2, path: 'f.txt' })).toEqual(bytes('v2\n'));
    expect(await repo.show({ turn: c3, path: 'f.txt' })).toEqual(bytes('v0\n'));
    expect(await repo.show({ turn: c3, path: 'n.txt' })).toBeUndefined();
    expect(await repo.diff({ from: c3 })).toContain('deleted file mode 100644\n--- a/n.txt');
  });

  it('git fsck --strict is clean after 200 turns, and log/show still answer', async () => {
    for (let index = 0; index < 50; index += 1)
      await write(`src/m${index % 10}/f${index}.txt`, `0 ${index}\n`);
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(),
      baselinePaths: await walkWorkspace(dirs.workspace),
    });
    for (let index = 1; index <= 200; index += 1) {
      const files: Record<string, string | null> = {
        [`src/m${index % 10}/f${index % 50}.txt`]: `${index}\n`,
        [`log/t${index}.txt`]: `turn ${index}\n`,
      };
      if (index % 7 === 0) files[`log/t${index - 1}.txt`] = null;
      for (const [relative, content] of Object.entries(files)) {
        if (content === null) await rm(path.join(dirs.workspace, relative), { force: true });
        else await write(relative, content);
      }
      await repo.commitTurn({
        sessionId: index % 2 === 0 ? 'even' : 'odd',
        turnId: index,
        paths: Object.keys(files),
      });
    }
    expect((await repo.flush()).failures).toEqual([]);
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
    expect(await repo.log({ limit: 1000 })).toHaveLength(201);
    expect((await repo.log({ session: 'odd', limit: 1000 })).map((entry) => entry.turnId)).toHaveLength(100);
    expect(await repo.show({ turn: { sessionId: 'even', turnId: 200 }, path: 'src/m0/f0.txt' })).toEqual(
      bytes('200\n'),
    );
    const count = await shadowGit(repo.gitdir, dirs.userHome, ['rev-list', '--count', '--all']);
    expect(count).toBe('201\n');
  });
});

describe('after a manual git gc', () => {
  it('packed objects and packed refs are still read, and new turns land on top', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    const first = await turn('s1', 1, 'one', { 'src/a.txt': 'a1\n', 'b.txt': 'b1\n' });
    await repo.close();
    await shadowGit(repo.gitdir, dirs.userHome, ['gc', '--quiet', '--prune=now']);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(path.join(repo.gitdir, 'refs', 'safeturn'))).toEqual([]);
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(Date.UTC(2026, 5, 1)),
    });
    expect(repo.openRepair?.refs).toEqual([]);
    const second = await turn('s1', 2, 'two', { 'src/a.txt': 'a2\n' });
    expect((await repo.log()).map((entry) => [entry.commitId, entry.changedPaths])).toEqual([
      [second, ['src/a.txt']],
      [first, ['b.txt', 'src/a.txt']],
    ]);
    expect(await repo.show({ turn: first, path: 'src/a.txt' })).toEqual(bytes('a1\n'));
    expect(await repo.show({ turn: second, path: 'b.txt' })).toEqual(bytes('b1\n'));
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });
});
