import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/loop/tool-types.js';
import { createWorktreeManager, createWorktreeTools } from '../../src/worktree/index.js';
import { type Fixture, makeFixture, recordingHost } from './helpers.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture({ 'README.md': 'hello\n', 'a.txt': 'one\ntwo\nthree\n' });
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('worktree tools', () => {
  it('are kind "other" with zod input schemas that reject bad input', () => {
    const tools = createWorktreeTools(createWorktreeManager(recordingHost(fixture)));
    expect(Object.keys(tools)).toEqual([
      'worktree_create',
      'worktree_merge',
      'worktree_discard',
      'worktree_list',
    ]);
    for (const tool of Object.values(tools)) expect(tool.kind).toBe('other');
    expect(tools.worktree_create.inputSchema.safeParse({ name: '../x' }).success).toBe(false);
    expect(tools.worktree_merge.inputSchema.safeParse({ name: 'a', strategy: 'force' }).success).toBe(false);
    expect(tools.worktree_merge.inputSchema.safeParse({ name: 'a', strategy: 'markers' }).success).toBe(true);
  });

  it('create, list, merge (refused, then markers) and discard read well for a model', async () => {
    const tools = createWorktreeTools(createWorktreeManager(recordingHost(fixture)));
    const context: ToolContext = { root: fixture.workspace };
    await fixture.write('notes.txt', 'untracked\n');
    const created = await tools.worktree_create.execute({ name: 'try' }, context);
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.output).toContain('Created worktree "try" on branch safeturn/session-1/try');
    expect(created.output).toContain("Carried the user's 1 uncommitted change(s):\n  notes.txt\n");
    const worktreePath = created.data?.path ?? '';
    await fixture.write('a.txt', 'one\nTWO user\nthree\n');
    await writeFile(path.join(worktreePath, 'a.txt'), 'one\nTWO agent\nthree\n');

    const listed = await tools.worktree_list.execute({}, context);
    expect(listed.ok && listed.output).toContain(
      'try [active, your tools work here] branch safeturn/session-1/try',
    );

    const refused = await tools.worktree_merge.execute({ name: 'try' }, context);
    expect(refused).toMatchObject({ ok: false, error: { code: 'WORKTREE_CONFLICT' } });
    if (refused.ok) return;
    expect(refused.error.message).toContain('nothing was written');
    expect(refused.error.message).toContain('a.txt: 1 conflicting hunk(s)');
    expect(refused.error.message).toContain('--- worktree:\nTWO agent\n');

    const merged = await tools.worktree_merge.execute({ name: 'try', strategy: 'markers' }, context);
    expect(merged.ok && merged.output).toContain('resolved (markers): a.txt');
    const discarded = await tools.worktree_discard.execute({ name: 'try' }, context);
    expect(discarded.ok && discarded.output).toContain('Discarded worktree "try"');
    const missing = await tools.worktree_discard.execute({ name: 'try' }, context);
    expect(missing).toMatchObject({ ok: false, error: { code: 'WORKTREE_NOT_FOUND' } });
  });

  it('outside git, worktree_create fails with WORKTREE_NEEDS_GIT for the model', async () => {
    const temp = await dir({ unsafeCleanup: true });
    try {
      const workspace = await realpath(temp.path);
      const tools = createWorktreeTools(createWorktreeManager({ ...recordingHost(fixture), workspace }));
      const result = await tools.worktree_create.execute({}, { root: workspace });
      expect(result).toMatchObject({ ok: false, error: { code: 'WORKTREE_NEEDS_GIT' } });
      expect(!result.ok && result.error.message).toContain('Worktrees need git');
    } finally {
      await temp.cleanup();
    }
  });

  it('host failures in the checkpoint seam throw instead of becoming tool results', async () => {
    const host = {
      ...recordingHost(fixture),
      beforeWrite: async () => {
        throw new Error('checkpoint store unavailable');
      },
    };
    const tools = createWorktreeTools(createWorktreeManager(host));
    const created = await tools.worktree_create.execute({ name: 'h' }, { root: fixture.workspace });
    if (!created.ok) throw new Error('create failed');
    await writeFile(path.join(created.data?.path ?? '', 'new.txt'), 'x\n');
    await expect(tools.worktree_merge.execute({ name: 'h' }, { root: fixture.workspace })).rejects.toThrow(
      'checkpoint store unavailable',
    );
  });
});
