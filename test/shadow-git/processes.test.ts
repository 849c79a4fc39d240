import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openShadowRepo, type ShadowRepo } from '../../src/shadow-git/index.js';
import { buildChild, type ChildBuild } from './child-build.js';
import { bytes, fsck, makeDirs, type TestDirs } from './helpers.js';

let build: ChildBuild;
let dirs: TestDirs;
let repo: ShadowRepo | undefined;

beforeAll(async () => {
  build = await buildChild();
}, 60_000);
afterAll(async () => {
  await build.remove();
});
beforeEach(async () => {
  dirs = await makeDirs();
});
afterEach(async () => {
  await repo?.close();
  repo = undefined;
  await dirs.cleanup();
});

function runChild(session: string, start: number, count: number, mode: 'wait' | 'nowait') {
  return execa(
    'node',
    [build.script, dirs.workspace, dirs.home, session, String(start), String(count), mode],
    {
      env: { ...process.env, HOME: dirs.userHome, SAFETURN_HOME: dirs.home },
      buffer: true,
      reject: false,
    },
  );
}

/** Turn ids of a session's commits, oldest first, and a check that each stored its own write. */
async function sessionTurns(handle: ShadowRepo, session: string): Promise<number[]> {
  const entries = await handle.log({ session, limit: 100_000 });
  const turns = entries.map((entry) => Number(entry.turnId)).reverse();
  for (const turn of turns) {
    const file = `${session}/f${turn % 5}.txt`;
    expect(await handle.show({ turn: { sessionId: session, turnId: turn }, path: file })).toEqual(
      bytes(`${session} turn ${turn}\n`),
    );
  }
  return turns;
}

describe('processes', () => {
  it('a process killed mid-commit leaves a repository that the next open repairs', async () => {
    let next = 1;
    let killedWithPending = 0;
    for (const delayMs of [150, 400, 700]) {
      const child = runChild('crash', next, 1_000_000, 'nowait');
      let queued = 0;
      await new Promise<void>((resolve) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          const matches = [...chunk.toString().matchAll(/queued (\d+)/g)];
          if (matches.length > 0) queued = Number(matches.at(-1)![1]);
          if (queued > 0) setTimeout(resolve, delayMs);
        });
      });
      child.kill('SIGKILL');
      await child;
      const pendingDir = path.join(dirs.home, 'projects');
      const pending = (await readdir(pendingDir, { recursive: true })).filter((name) =>
        /pending\/[^/]+\.json$/.test(name),
      );
      if (pending.length > 0) killedWithPending += 1;

      repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
      expect(repo.openRepair?.replayed.length).toBe(pending.length);
      // Only a record temp file of a write the kill interrupted may remain (removed once a minute old).
      const left = await readdir(path.join(repo.gitdir, 'safeturn', 'pending'));
      expect(left.filter((name) => !name.endsWith('.safeturn-tmp'))).toEqual([]);
      const turns = await sessionTurns(repo, 'crash');
      // Every turn whose commitTurn returned is there, once, in order, with no gap.
      expect(turns).toEqual(Array.from({ length: turns.length }, (_, index) => index + 1));
      expect(turns.length).toBeGreaterThanOrEqual(queued);
      expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
      next = turns.length + 1;
      await repo.close();
      repo = undefined;
    }
    expect(killedWithPending).toBeGreaterThan(0);
  }, 60_000);

  it('case C12: two processes committing at once both land, each on its own session ref', async () => {
    const [first, second] = await Promise.all([runChild('p1', 1, 40, 'wait'), runChild('p2', 1, 40, 'wait')]);
    expect(first.stdout).toContain('done 0');
    expect(second.stdout).toContain('done 0');
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    const oneToForty = Array.from({ length: 40 }, (_, index) => index + 1);
    expect(await sessionTurns(repo, 'p1')).toEqual(oneToForty);
    expect(await sessionTurns(repo, 'p2')).toEqual(oneToForty);
    expect(await repo.log({ limit: 1000 })).toHaveLength(80);
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  }, 60_000);
});
