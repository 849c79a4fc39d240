import { execFile } from 'node:child_process';
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deleteSessionData } from '../../src/checkpoint/gc.js';
import { createSession, exists, read, setup, tempDir, turn, writeFiles } from '../helpers.js';

const run = promisify(execFile);

async function blobCount(projectDir: string): Promise<number> {
  const entries = await readdir(path.join(projectDir, 'blobs'), { recursive: true }).catch(
    () => [] as string[],
  );
  return entries.filter((name) => /[0-9a-f]{64}$/.test(name)).length;
}

describe('bad input and damaged stores', () => {
  it('a torn or corrupted journal line is skipped, never fatal', async () => {
    const { workspace, home, session, tools, context } = await setup({ sessionId: 'torn' });
    await writeFiles(workspace, { 'a.txt': 'A' });
    await turn(session, 'one', async () => {
      await tools.read.execute({ path: 'a.txt' }, context());
      await tools.write.execute({ path: 'a.txt', content: 'B' }, context());
    });
    await session.close();
    const journal = path.join(session.projectDir, 'sessions', 'torn', 'journal.jsonl');
    await appendFile(journal, '{"type":"capture","turn":"t1","pa');
    const resumed = await createSession({ workspace, home, sessionId: 'torn' });
    expect((await resumed.journal.read()).skippedLines).toHaveLength(1);
    await resumed.beginTurn({ label: 'two' });
    await resumed.endTurn();
    const reread = await resumed.journal.read();
    expect(reread.skippedLines).toHaveLength(1);
    expect(reread.records.at(-1)).toMatchObject({ type: 'turn-end', turn: 't2' });
    await resumed.rewind('t1');
    expect(await read(workspace, 'a.txt')).toBe('A');
  });

  it('a blob deleted by hand is a named failure; the other files are restored', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.txt': 'alpha', 'b.txt': 'beta' });
    await turn(session, 'both', async () => {
      for (const name of ['a.txt', 'b.txt']) {
        await tools.read.execute({ path: name }, context());
        await tools.write.execute({ path: name, content: 'changed' }, context());
      }
    });
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update('alpha').digest('hex');
    await rm(path.join(session.projectDir, 'blobs', hash.slice(0, 2), hash));
    const report = await session.rewind(1);
    expect(report.failed).toMatchObject([{ path: 'a.txt', code: 'STORE_CORRUPT' }]);
    expect(report.restored).toEqual(['b.txt']);
    expect(await read(workspace, 'b.txt')).toBe('beta');
    expect(await read(workspace, 'a.txt')).toBe('changed');
  });

  it('a non-UTF-8 file name gives a typed tool error, not a crash', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/`), Buffer.from([0xff, 0x2e, 0x74])]), 'bytes');
    await session.beginTurn({ label: 'bad name' });
    const result = await tools.read.execute({ path: '\uFFFD.t' }, context());
    expect(result).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const nul = await tools.write.execute({ path: 'a\0b', content: 'x' }, context());
    expect(nul).toMatchObject({ ok: false, error: { code: 'PATH_INVALID' } });
  });

  it('a directory where a file is expected: tool error, and a named restore failure', async () => {
    const { workspace, session, tools, context } = await setup();
    await mkdir(path.join(workspace, 'dir'));
    await session.beginTurn({ label: 'dir' });
    expect(await tools.write.execute({ path: 'dir', content: 'x' }, context())).toMatchObject({
      ok: false,
      error: { code: 'NOT_A_FILE' },
    });
    expect(await tools.read.execute({ path: 'dir' }, context())).toMatchObject({
      ok: false,
      error: { code: 'NOT_A_FILE' },
    });
    await tools.write.execute({ path: 'f.txt', content: 'x' }, context());
    await session.endTurn();
    await rm(path.join(workspace, 'f.txt'));
    await mkdir(path.join(workspace, 'f.txt'));
    await writeFile(path.join(workspace, 'f.txt', 'inner'), 'keep');
    const report = await session.rewind(1, { force: true });
    expect(report.failed).toMatchObject([{ path: 'f.txt', code: 'RESTORE_BLOCKED' }]);
    expect(await read(workspace, 'f.txt/inner')).toBe('keep');
  });

  it('a journal entry pointing outside the workspace is refused at restore (rule 4)', async () => {
    const { workspace, home, session } = await setup({ sessionId: 'evil' });
    const outside = await tempDir();
    await writeFile(path.join(outside, 'victim.txt'), 'safe');
    await turn(session, 't', async () => {});
    await session.close();
    const journal = path.join(session.projectDir, 'sessions', 'evil', 'journal.jsonl');
    const relative = path.relative(workspace, path.join(outside, 'victim.txt'));
    await appendFile(
      journal,
      `${JSON.stringify({ type: 'capture', turn: 't1', path: relative, pre: { kind: 'absent' } })}\n`,
    );
    await appendFile(
      journal,
      `${JSON.stringify({ type: 'capture', turn: 't1', path: '/etc/hostname', pre: { kind: 'absent' } })}\n`,
    );
    const resumed = await createSession({ workspace, home, sessionId: 'evil' });
    const report = await resumed.rewind(1, { force: true });
    expect(report.failed.map((failure) => failure.code)).toEqual([
      'PATH_OUTSIDE_WORKSPACE',
      'PATH_OUTSIDE_WORKSPACE',
    ]);
    expect(await read(outside, 'victim.txt')).toBe('safe');
  });

  it('rejects an invalid session id and a missing workspace', async () => {
    const home = await tempDir();
    const workspace = await tempDir();
    await expect(createSession({ workspace, home, sessionId: '_hidden' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createSession({ workspace, home, sessionId: '../x' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createSession({ workspace: path.join(workspace, 'nope'), home })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('store sharing, locks and growth', () => {
  it('case C12: a stale lock from a dead pid does not block capture or gc', async () => {
    const { workspace, session, tools, context } = await setup();
    await mkdir(session.projectDir, { recursive: true });
    const dead = await run(process.execPath, ['-e', 'console.log(process.pid)']);
    await writeFile(
      path.join(session.projectDir, 'gc.lock'),
      JSON.stringify({
        pid: Number(dead.stdout.trim()),
        host: (await import('node:os')).hostname(),
        token: 'x',
        purpose: 'gc',
        at: '',
      }),
    );
    await turn(session, 'capture', async () => {
      expect((await tools.write.execute({ path: 'a.txt', content: 'a' }, context())).ok).toBe(true);
    });
    const report = await session.gc({ graceMs: 0 });
    expect(report.deletedBlobs).toBe(0);
    expect(await exists(session.projectDir, 'gc.lock')).toBe(false);
    expect(await exists(workspace, 'a.txt')).toBe(true);
  });

  it('case C12: two live sessions capturing 100 times at once lose nothing', async () => {
    const workspace = await tempDir();
    const home = await tempDir();
    const files: Record<string, string> = {};
    for (let index = 0; index < 100; index += 1) files[`f${index}.txt`] = `shared ${index % 10}\n`;
    await writeFiles(workspace, files);
    const script = `
      import { createSession } from ${JSON.stringify(path.resolve('dist/index.js'))};
      import { writeFile } from 'node:fs/promises';
      const [workspace, home, id] = process.argv.slice(1);
      const session = await createSession({ workspace, home, sessionId: id });
      await session.beginTurn({ label: 'hundred' });
      await Promise.all(Array.from({ length: 100 }, async (_, index) => {
        await session.capture(['f' + index + '.txt', id + '-new' + index + '.txt']);
      }));
      await session.endTurn();
      await session.close();
    `;
    await Promise.all(
      ['alpha', 'beta'].map((id) =>
        run(process.execPath, ['--input-type=module', '-e', script, workspace, home, id]),
      ),
    );
    for (const id of ['alpha', 'beta']) {
      const session = await createSession({ workspace, home, sessionId: id, readOnly: true });
      const { records, skippedLines } = await session.journal.read();
      expect(skippedLines).toEqual([]);
      expect(records.filter((record) => record.type === 'capture')).toHaveLength(200);
      expect(session.rollbackPoints()[0]!.files).toHaveLength(200);
    }
    const anySession = await createSession({ workspace, home, sessionId: 'alpha', readOnly: true });
    expect(await blobCount(anySession.projectDir)).toBe(10);
  });

  it('case C18: identical rewrites store one blob; gc honours limits; deleting a session frees its blobs', async () => {
    const { workspace, home, session } = await setup({ sizeCapBytes: 64 * 1024 * 1024, sessionId: 'growth' });
    const big = Buffer.alloc(40 * 1024 * 1024, 1);
    await writeFile(path.join(workspace, 'gen.bin'), big);
    for (let index = 0; index < 50; index += 1) {
      await turn(session, `regen ${index}`, async () => {
        await session.capture(['gen.bin']);
        await writeFile(path.join(workspace, 'gen.bin'), big);
        await session.recordWritten(['gen.bin']);
      });
    }
    expect(await blobCount(session.projectDir)).toBe(1);
    for (let index = 0; index < 5; index += 1) {
      await turn(session, `small ${index}`, async () => {
        await session.capture(['s.txt']);
        await writeFile(path.join(workspace, 's.txt'), `content ${index}`.repeat(1000));
        await session.recordWritten(['s.txt']);
      });
    }
    expect(await blobCount(session.projectDir)).toBe(5);
    const limited = await session.gc({ graceMs: 0, maxStoreBytes: 100_000 });
    expect(limited.storeBytes).toBeLessThanOrEqual(100_000);
    expect(limited.prunedTurns).toHaveLength(50);
    expect(limited.deletedBlobs).toBeGreaterThanOrEqual(1);
    const other = await createSession({ workspace, home, sessionId: 'other' });
    await turn(other, 'own', async () => {
      await other.capture(['o.txt']);
      await writeFile(path.join(workspace, 'o.txt'), 'o');
      await other.recordWritten(['o.txt']);
      await other.capture(['s.txt']);
      await writeFile(path.join(workspace, 's.txt'), 'unique to other');
    });
    const before = await blobCount(session.projectDir);
    await deleteSessionData(session.projectDir, 'growth');
    const freed = await other.gc({ graceMs: 0 });
    expect(freed.deletedBlobs).toBe(before - 1);
    expect(await blobCount(session.projectDir)).toBe(1);
    expect(await readFile(path.join(workspace, 's.txt'), 'utf8')).toBe('unique to other');
  });
});

describe('one writer per session', () => {
  it('a second writer on a live session gets SESSION_IN_USE; readOnly opens work; close releases', async () => {
    const workspace = await tempDir();
    const home = await tempDir();
    const first = await createSession({ workspace, home, sessionId: 'busy' });
    await first.beginTurn({ label: 'open turn' });
    await expect(
      createSession({ workspace, home, sessionId: 'busy', lockTimeoutMs: 100 }),
    ).rejects.toMatchObject({ code: 'SESSION_IN_USE' });
    const reader = await createSession({ workspace, home, sessionId: 'busy', readOnly: true });
    expect(reader.currentTurn()?.id).toBe('t1');
    await expect(reader.beginTurn({ label: 'x' })).rejects.toMatchObject({ code: 'TURN_STATE' });
    await expect(createSession({ workspace, home, sessionId: 'nope', readOnly: true })).rejects.toMatchObject(
      { code: 'NO_SUCH_SESSION' },
    );
    await first.endTurn();
    await first.close();
    const second = await createSession({ workspace, home, sessionId: 'busy', lockTimeoutMs: 100 });
    expect(second.rollbackPoints()).toHaveLength(1);
    const readOnlyChange = await createSession({ workspace, home, sessionId: 'busy', readOnly: true });
    await expect(readOnlyChange.beginTurn({ label: 'y' })).rejects.toMatchObject({ code: 'READ_ONLY' });
  });
});
