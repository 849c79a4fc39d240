import { appendFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionTools } from '../../src/loop/session-tools.js';
import { createSession, exists, read, tempDir, turn, writeFiles } from '../helpers.js';

describe('a hostile journal, a home inside the workspace, symlinks created by a turn', () => {
  it('a journal record with a root outside the workspace is refused at restore (rule 4)', async () => {
    const base = await tempDir();
    const workspace = path.join(base, 'ws');
    const victim = path.join(base, 'victim');
    await mkdir(workspace);
    await mkdir(victim);
    await writeFile(path.join(victim, 'precious.txt'), 'keep me');
    const home = path.join(base, 'home');
    const session = await createSession({ workspace, home, sessionId: 'evil-root' });
    await turn(session, 't', async () => {});
    await session.close();
    const journal = path.join(session.projectDir, 'sessions', 'evil-root', 'journal.jsonl');
    await appendFile(
      journal,
      `${JSON.stringify({ type: 'capture', turn: 't1', path: 'precious.txt', root: victim, pre: { kind: 'absent' } })}\n`,
    );
    await appendFile(
      journal,
      `${JSON.stringify({ type: 'post', turn: 't1', path: 'precious.txt', root: victim, post: { kind: 'file', sha256: 'a'.repeat(64), size: 7, mode: 420 } })}\n`,
    );
    const resumed = await createSession({ workspace, home, sessionId: 'evil-root' });
    const report = await resumed.rewind(1, { force: true });
    expect(report.failed).toMatchObject([{ path: 'precious.txt', code: 'PATH_OUTSIDE_WORKSPACE' }]);
    expect(await read(victim, 'precious.txt')).toBe('keep me');
  });

  it('a home inside the workspace is never scanned, captured or restored', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'notes.txt': 'v1\n' });
    const home = path.join(workspace, '.safeturn');
    const session = await createSession({ workspace, home });
    const tools = createSessionTools(session);
    await session.beginTurn({ label: 'shell' });
    const result = (await tools.bash.execute(
      { command: 'echo v2 > notes.txt' },
      { root: session.root },
    )) as unknown as { coverage: { created: string[]; modified: string[] } };
    expect(result.coverage.modified).toEqual(['notes.txt']);
    expect(result.coverage.created).toEqual([]);
    const refused = await tools.write.execute(
      { path: '.safeturn/projects/x', content: 'x' },
      { root: session.root },
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'PATH_INVALID' } });
    await session.endTurn();
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    expect(await read(workspace, 'notes.txt')).toBe('v1\n');
  });

  it('a rewind never writes through a symlink the undone turn put where a directory was', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'd/f': 'original f\n', 'e/keep': 'e\n' });
    const session = await createSession({ workspace, home: await tempDir() });
    const tools = createSessionTools(session);
    await turn(session, 'swap', async () => {
      await tools.bash.execute({ command: 'rm -rf d && ln -s e d' }, { root: session.root });
    });
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    expect(await read(workspace, 'd/f')).toBe('original f\n');
    expect(await exists(workspace, 'e/f')).toBe(false);
    expect(await readFile(path.join(workspace, 'e/keep'), 'utf8')).toBe('e\n');
  });

  it('a symlink the user put in place of a directory blocks the restore below it, by name', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'd/f': 'f1\n', 'elsewhere/.keep': '' });
    const session = await createSession({ workspace, home: await tempDir() });
    const tools = createSessionTools(session);
    await turn(session, 'edit', async () => {
      await tools.read.execute({ path: 'd/f' }, { root: session.root });
      await tools.write.execute({ path: 'd/f', content: 'f2\n' }, { root: session.root });
    });
    const { rm } = await import('node:fs/promises');
    await rm(path.join(workspace, 'd'), { recursive: true });
    await symlink('elsewhere', path.join(workspace, 'd'));
    const report = await session.rewind(1, { force: true });
    expect(report.failed).toMatchObject([{ path: 'd/f', code: 'RESTORE_BLOCKED' }]);
    expect(await exists(workspace, 'elsewhere/f')).toBe(false);
  });
});
