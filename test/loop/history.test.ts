import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionTools } from '../../src/loop/session-tools.js';
import { createSession, git, read, setup, tempDir, turn, writeFiles } from '../helpers.js';

function shadowGit(session: { projectDir: string }, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', path.join(session.projectDir, 'shadow.git'), ...args], {
    encoding: 'utf8',
  });
}

describe('shadow history through the session', () => {
  it('every turn is a commit on refs/safeturn/<session>; a rewind is a new commit (rule B); restoreFile is rewindable', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'a.txt': 'one\n' });
    const { session, tools, context } = await setup({ sessionId: 'hist', workspace });
    const t1 = await turn(session, 'write two', async () => {
      await tools.read.execute({ path: 'a.txt' }, context());
      await tools.write.execute({ path: 'a.txt', content: 'two\n' }, context());
      await tools.write.execute({ path: 'b.txt', content: 'bee\n' }, context());
    });
    await session.flush();
    const history = session.history!;
    const log = await history.log({ session: 'hist' });
    expect(log[0]).toMatchObject({ kind: 'turn', turnId: t1, label: 'write two' });
    expect(
      new TextDecoder().decode(
        await history.show({ turn: { sessionId: 'hist', turnId: t1 }, path: 'a.txt' }),
      ),
    ).toBe('two\n');
    const diff = await history.diff({ from: { sessionId: 'hist', turnId: t1 } });
    expect(diff).toContain('-one');
    expect(diff).toContain('+two');
    expect(shadowGit(session, 'log', '--format=%s', 'refs/safeturn/hist')).toContain('write two');
    await session.rewind(1);
    await session.flush();
    const afterRewind = await history.log({ session: 'hist' });
    expect(afterRewind.map((entry) => entry.kind)).toEqual(['turn', 'turn']);
    expect(afterRewind[0]!.label).toContain('rewind');
    expect(afterRewind[1]!.turnId).toBe(t1);
    expect(await read(workspace, 'a.txt')).toBe('one\n');
    await session.beginTurn({ label: 'restore a from t1' });
    expect(await session.restoreFile(t1, 'a.txt')).toBe('restored');
    expect(await session.restoreFile(t1, 'a.txt')).toBe('unchanged');
    expect(await session.restoreFile(t1, 'never-existed.txt')).toBe('unchanged');
    expect(await read(workspace, 'a.txt')).toBe('two\n');
    await session.endTurn();
    await session.rewind(1);
    expect(await read(workspace, 'a.txt')).toBe('one\n');
    expect(shadowGit(session, 'fsck', '--strict').trim()).toBe('');
  });

  it('rule A: while a worktree is active the turn is recorded as skipped', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'x.txt': 'x\n' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
    const session = await createSession({ workspace, home: await tempDir(), sessionId: 'rule-a' });
    const tools = createSessionTools(session);
    await turn(session, 'in the worktree', async () => {
      await tools.worktree_create.execute({ name: 'w' }, { root: session.root });
      await tools.write.execute({ path: 'y.txt', content: 'y\n' }, { root: session.root });
    });
    await session.flush();
    const log = await session.history!.log({ session: 'rule-a' });
    expect(log[0]).toMatchObject({ kind: 'skipped', turnId: 't1' });
  });

  it('shadowGit: false opens no repository', async () => {
    const workspace = await tempDir();
    const session = await createSession({ workspace, home: await tempDir(), shadowGit: false });
    expect(session.history).toBeUndefined();
  });
});

describe('a process that died inside a turn', () => {
  it('the next start ends the turn and commits it to the shadow history', async () => {
    const workspace = await tempDir();
    const home = await tempDir();
    await writeFiles(workspace, { 'a.txt': 'one\n' });
    const script = `
      import { createSession } from ${JSON.stringify(path.resolve('dist/index.js'))};
      import { writeFile } from 'node:fs/promises';
      const [workspace, home] = process.argv.slice(1);
      const session = await createSession({ workspace, home, sessionId: 'crashy' });
      await session.beginTurn({ label: 'interrupted' });
      await session.capture(['a.txt']);
      await writeFile(workspace + '/a.txt', 'two\\n');
      await session.recordWritten(['a.txt']);
      await session.flushWrites();
      process.kill(process.pid, 'SIGKILL');
    `;
    const { spawnSync } = await import('node:child_process');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, workspace, home], {
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    const session = await createSession({ workspace, home, sessionId: 'crashy' });
    expect(session.currentTurn()).toBeUndefined();
    expect(session.rollbackPoints()).toMatchObject([
      { turnId: 't1', label: 'interrupted', files: ['a.txt'] },
    ]);
    await session.flush();
    const log = await session.history!.log({ session: 'crashy' });
    expect(log[0]).toMatchObject({ kind: 'turn', turnId: 't1', changedPaths: ['a.txt'] });
    await session.rewind(1);
    expect(await read(workspace, 'a.txt')).toBe('one\n');
  });
});
