import { chmod, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/loop/session.js';
import { wrapTools } from '../../src/loop/wrap-tools.js';
import { createReferenceTools } from '../../src/tools/reference-tools.js';
import { createWorktreeManager, type WorktreeHost } from '../../src/worktree/index.js';
import { createSession } from '../helpers.js';
import { type Fixture, makeFixture, treeState } from './helpers.js';

/** The adapter the lead's session will own: the seam maps onto the checkpoint store of the active turn. */
function sessionHost(session: Session): WorktreeHost {
  return {
    workspace: session.workspace,
    home: session.home,
    sessionId: session.id,
    async beforeWrite(root, paths) {
      for (const relative of paths) await session.checkpoints.capture(root, relative);
    },
    async afterWrite(root, paths) {
      for (const relative of paths) await session.checkpoints.recordPost(root, relative);
    },
    setActiveRoot: (root) => session.setActiveRoot(root),
  };
}

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture({
    'README.md': 'hello\n',
    'src/a.ts': 'one\ntwo\nthree\nfour\nfive\n',
    'src/old.ts': 'old\n',
    'tool.sh': '#!/bin/sh\n',
    'logo.bin': Buffer.from([0, 1, 2, 3]),
  });
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('worktree with a real session', () => {
  it('the agent writes in the worktree through the wrapped tools; merge then rewind restores the pre-merge state byte for byte', async () => {
    const session = await createSession({
      workspace: fixture.workspace,
      home: fixture.home,
      sessionId: 'session-1',
    });
    const tools = wrapTools({ session, tools: createReferenceTools() });
    const manager = createWorktreeManager(sessionHost(session));
    await fixture.write('src/a.ts', 'ONE (user, before)\ntwo\nthree\nfour\nfive\n');

    await session.beginTurn({ label: 'work in a worktree' });
    const created = await manager.create({ name: 'spike' });
    expect(session.root).toBe(created.root);
    const context = () => ({ root: session.root });
    expect(await tools.read.execute({ path: 'src/a.ts' }, context())).toMatchObject({ ok: true });
    expect(
      await tools.write.execute(
        { path: 'src/a.ts', content: 'ONE (user, before)\ntwo\nthree\nfour\nFIVE (agent)\n' },
        context(),
      ),
    ).toMatchObject({ ok: true });
    expect(
      await tools.write.execute({ path: 'src/new/module.ts', content: 'export {};\n' }, context()),
    ).toMatchObject({ ok: true });
    await rm(path.join(created.root, 'src/old.ts'));
    await chmod(path.join(created.root, 'tool.sh'), 0o755);
    await writeFile(path.join(created.root, 'logo.bin'), Buffer.from([9, 0, 9]));
    // The user's folder is untouched by the agent's writes.
    expect((await fixture.read('src/a.ts')).toString()).toBe('ONE (user, before)\ntwo\nthree\nfour\nfive\n');
    await session.endTurn();

    // The user keeps editing while the agent works.
    await fixture.write('src/a.ts', 'ONE (user, before)\ntwo (user, during)\nthree\nfour\nfive\n');
    const before = await treeState(fixture.workspace);

    const { id: mergeTurn } = await session.beginTurn({ label: 'merge the worktree' });
    const report = await manager.merge({ name: 'spike' });
    await session.endTurn();
    expect(report.files).toEqual([
      { path: 'logo.bin', action: 'written' },
      { path: 'src/a.ts', action: 'merged' },
      { path: 'src/new/module.ts', action: 'written' },
      { path: 'src/old.ts', action: 'deleted' },
      { path: 'tool.sh', action: 'mode' },
    ]);
    expect(session.root).toBe(fixture.workspace);
    expect((await fixture.read('src/a.ts')).toString()).toBe(
      'ONE (user, before)\ntwo (user, during)\nthree\nfour\nFIVE (agent)\n',
    );
    expect((await stat(path.join(fixture.workspace, 'tool.sh'))).mode & 0o777).toBe(0o755);
    expect(session.rollbackPoints()[0]?.files).toEqual([
      'logo.bin',
      'src/a.ts',
      'src/new/module.ts',
      'src/old.ts',
      'tool.sh',
    ]);

    await session.rewind(mergeTurn);
    expect(await treeState(fixture.workspace)).toEqual(before);
    await expect(stat(path.join(fixture.workspace, 'src/new'))).rejects.toMatchObject({ code: 'ENOENT' });
    await manager.discard({ name: 'spike' });
    await session.close();
  });
});
