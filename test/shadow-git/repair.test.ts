import { copyFile, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/core/lock.js';
import { openShadowRepo, type ShadowRepo } from '../../src/shadow-git/index.js';
import { bytes, fsck, makeDirs, shadowGit, steppingClock, type TestDirs } from './helpers.js';

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

async function commit(handle: ShadowRepo, turnId: number, content: string): Promise<string> {
  await writeFile(path.join(dirs.workspace, 'f.txt'), content);
  return (await handle.commitTurn({ sessionId: 's1', turnId, paths: ['f.txt'] })).committed;
}

async function deadPid(): Promise<number> {
  const child = await execa('sh', ['-c', 'echo $$']);
  return Number(child.stdout.trim());
}

describe('repair and locks', () => {
  it('case C12: a lock left by a dead process is taken over; a torn lock file too', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    const lockFile = path.join(repo.gitdir, 'safeturn', 'commit.lock');
    await writeFile(
      lockFile,
      JSON.stringify({ pid: await deadPid(), host: hostname(), token: 'dead', purpose: 'test', at: '' }),
    );
    expect(await commit(repo, 1, 'one\n')).toMatch(/^[0-9a-f]{40}$/);
    // Killed between creating the lock file and writing it: empty, and older than the grace period.
    await writeFile(lockFile, '');
    const past = new Date(Date.now() - 10_000);
    await utimes(lockFile, past, past);
    const started = Date.now();
    expect(await commit(repo, 2, 'two\n')).toMatch(/^[0-9a-f]{40}$/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await repo.log({ session: 's1' })).map((entry) => entry.turnId)).toEqual(['2', '1']);
  });

  it('a commit that cannot take the lock fails in flush(), keeps its record, and lands on repair', async () => {
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(),
      lockTimeoutMs: 300,
    });
    const first = await commit(repo, 1, 'one\n');
    const lock = await acquireLock(path.join(repo.gitdir, 'safeturn', 'commit.lock'), {
      purpose: 'test holds it',
    });
    await writeFile(path.join(dirs.workspace, 'f.txt'), 'two\n');
    const queued = await repo.commitTurn({ sessionId: 's1', turnId: 2, paths: ['f.txt'] });
    await expect(queued.committed).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    const report = await repo.flush();
    expect(report.failures.map((failure) => [failure.kind, failure.turnId, failure.error.code])).toEqual([
      ['turn', '2', 'LOCK_TIMEOUT'],
    ]);
    const pendingDir = path.join(repo.gitdir, 'safeturn', 'pending');
    const [recordName] = await readdir(pendingDir);
    expect(recordName).toBe(`${queued.recordId}.json`);
    // Objects written, ref not moved: the tip is still turn 1.
    expect(await shadowGit(repo.gitdir, dirs.userHome, ['rev-parse', 'refs/safeturn/s1'])).toBe(`${first}\n`);
    const savedRecord = path.join(dirs.userHome, 'record.json');
    await copyFile(path.join(pendingDir, recordName!), savedRecord);
    // The user edits the file again before the repair: the record still commits the turn's bytes.
    await writeFile(path.join(dirs.workspace, 'f.txt'), 'edited later\n');
    await lock.release();

    const repair = await repo.repair();
    expect(repair.replayed).toHaveLength(1);
    const second = repair.replayed[0]!.commitId;
    expect(await repo.show({ turn: { sessionId: 's1', turnId: 2 }, path: 'f.txt' })).toEqual(bytes('two\n'));
    expect(await readdir(pendingDir)).toEqual([]);

    // Killed after moving the ref but before removing the record: the next open only removes it.
    await copyFile(savedRecord, path.join(pendingDir, recordName!));
    await repo.close();
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    expect(repo.openRepair?.replayed).toEqual([{ sessionId: 's1', turnId: '2', commitId: second }]);
    expect((await repo.log({ session: 's1' })).map((entry) => entry.commitId)).toEqual([second, first]);
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });

  it('a torn ref, or one naming a missing commit, is restored from its reflog', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    await commit(repo, 1, 'one\n');
    const second = await commit(repo, 2, 'two\n');
    await repo.close();
    const refFile = path.join(repo.gitdir, 'refs', 'safeturn', 's1');
    await writeFile(refFile, second.slice(0, 17));
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    expect(repo.openRepair?.refs).toEqual([
      { ref: 'refs/safeturn/s1', action: 'restored-from-reflog', oid: second },
    ]);
    expect(await readFile(refFile, 'utf8')).toBe(`${second}\n`);
    await repo.close();

    await writeFile(refFile, `${'ab'.repeat(20)}\n`);
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    expect(repo.openRepair?.refs).toEqual([
      { ref: 'refs/safeturn/s1', action: 'restored-from-reflog', oid: second },
    ]);
    expect(await repo.show({ turn: { sessionId: 's1', turnId: 2 }, path: 'f.txt' })).toEqual(bytes('two\n'));
    // Real git reads the reflog safeturn keeps.
    const reflog = await shadowGit(repo.gitdir, dirs.userHome, [
      'reflog',
      'show',
      '--format=%H',
      'refs/safeturn/s1',
    ]);
    expect(reflog.split('\n')[0]).toBe(second);
  });

  it('a corrupt pending record is set aside and named, not fatal', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    const pendingDir = path.join(repo.gitdir, 'safeturn', 'pending');
    await repo.close();
    await mkdir(pendingDir, { recursive: true });
    await writeFile(path.join(pendingDir, '000000000000001-000001-aaaaaaaaaaaa.json'), '{"version":1,"id":');
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    expect(repo.openRepair?.corruptRecords).toEqual(['000000000000001-000001-aaaaaaaaaaaa.json']);
    expect(await readdir(pendingDir)).toEqual(['000000000000001-000001-aaaaaaaaaaaa.json.corrupt']);
  });
});
