import { access, lstat, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectId } from '../../src/core/home.js';
import { createWorktreeManager, WorktreeError } from '../../src/worktree/index.js';
import { type Fixture, makeFixture, recordingHost, treeState } from './helpers.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture({
    'README.md': 'hello\n',
    'src/app.ts': 'export const a = 1;\n',
    'src/gone.ts': 'delete me\n',
    'run.sh': '#!/bin/sh\necho hi\n',
    '.gitignore': 'node_modules/\n.env\n*.log\n',
  });
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('create', () => {
  it('carries the dirty tree: modified, deleted, untracked, staged, exec bit; ignored files stay out', async () => {
    await fixture.write('src/app.ts', 'export const a = 2;\n');
    const { rm } = await import('node:fs/promises');
    await rm(path.join(fixture.workspace, 'src/gone.ts'));
    await fixture.write('notes/new file.md', 'untracked\n');
    await fixture.write('staged.txt', 'staged\n');
    await fixture.git(['add', 'staged.txt']);
    await fixture.write('run.sh', '#!/bin/sh\necho hi\n', 0o755);
    await fixture.write('.env', 'SECRET=1\n');
    await fixture.write('node_modules/x/index.js', 'x\n');
    const statusBefore = await fixture.git(['status', '--porcelain=v1', '-z']);
    const headBefore = await fixture.git(['rev-parse', 'HEAD']);
    const userStateBefore = await treeState(fixture.workspace);

    const host = recordingHost(fixture);
    const manager = createWorktreeManager(host);
    const created = await manager.create({ name: 'spike' });

    const expectedPath = path.join(fixture.home, 'worktrees', projectId(fixture.workspace), 'spike');
    expect(created.path).toBe(expectedPath);
    expect(created.root).toBe(expectedPath);
    expect(created.branch).toBe('safeturn/session-1/spike');
    expect(created.carried).toEqual([
      'notes/new file.md',
      'run.sh',
      'src/app.ts',
      'src/gone.ts',
      'staged.txt',
    ]);
    expect(host.activeRoots).toEqual([expectedPath]);
    expect(manager.activeName()).toBe('spike');

    expect((await fixture.read('src/app.ts', created.path)).toString()).toBe('export const a = 2;\n');
    expect((await fixture.read('notes/new file.md', created.path)).toString()).toBe('untracked\n');
    expect((await fixture.read('staged.txt', created.path)).toString()).toBe('staged\n');
    await expect(access(path.join(created.path, 'src/gone.ts'))).rejects.toThrow();
    expect((await stat(path.join(created.path, 'run.sh'))).mode & 0o777).toBe(0o755);
    await expect(access(path.join(created.path, '.env'))).rejects.toThrow();
    await expect(access(path.join(created.path, 'node_modules'))).rejects.toThrow();

    // The agent starts clean: the carried state is the branch's commit, so `git status` shows nothing.
    expect(await fixture.git(['status', '--porcelain'], created.path)).toBe('');
    // The user's repository: same HEAD, same status, same files; no commit on main.
    expect(await fixture.git(['rev-parse', 'HEAD'])).toBe(headBefore);
    expect(await fixture.git(['rev-parse', 'main'])).toBe(headBefore);
    expect(await fixture.git(['status', '--porcelain=v1', '-z'])).toBe(statusBefore);
    expect(await treeState(fixture.workspace)).toEqual(userStateBefore);

    const porcelain = await fixture.git(['worktree', 'list', '--porcelain']);
    expect(porcelain).toContain(`worktree ${expectedPath}\n`);
    expect(porcelain).toContain('branch refs/heads/safeturn/session-1/spike\n');
    expect(porcelain).toContain(`locked safeturn pid ${process.pid}\n`);
  });

  it('carries gitignored files only when worktree.include (config) or the include option matches', async () => {
    await fixture.write('.env', 'SECRET=1\n');
    await fixture.write('debug.log', 'log\n');
    await fixture.write('other.log', 'other\n');
    await fixture.write('safeturn.config.json', JSON.stringify({ worktree: { include: ['.env'] } }));
    const manager = createWorktreeManager(recordingHost(fixture));
    const created = await manager.create({ name: 'inc', include: ['debug.log'] });
    expect(created.carried).toEqual(['safeturn.config.json', '.env', 'debug.log']);
    expect((await fixture.read('.env', created.path)).toString()).toBe('SECRET=1\n');
    expect((await fixture.read('debug.log', created.path)).toString()).toBe('log\n');
    await expect(access(path.join(created.path, 'other.log'))).rejects.toThrow();
    // Included ignored files never enter git objects: the branch's tree has no .env.
    expect(await fixture.git(['ls-tree', '-r', '--name-only', created.branch])).not.toContain('.env');
  });

  it('a base other than HEAD starts from that commit and does not carry the dirty tree', async () => {
    const first = (await fixture.git(['rev-parse', 'HEAD'])).trim();
    await fixture.write('README.md', 'second\n');
    await fixture.git(['commit', '-qam', 'second']);
    await fixture.write('README.md', 'dirty\n');
    const created = await createWorktreeManager(recordingHost(fixture)).create({ name: 'old', base: first });
    expect(created.baseCommit).toBe(first);
    expect(created.carried).toEqual([]);
    expect(created.carryNote).toContain('not HEAD');
    expect((await fixture.read('README.md', created.path)).toString()).toBe('hello\n');
  });

  it('a workspace that is a subfolder of the repository gets the matching subfolder as root', async () => {
    const workspace = path.join(fixture.workspace, 'src');
    const host = { ...recordingHost(fixture), workspace };
    await fixture.write('src/app.ts', 'export const a = 3;\n');
    const created = await createWorktreeManager(host).create({ name: 'sub' });
    expect(created.root).toBe(path.join(created.path, 'src'));
    expect(created.carried).toEqual(['app.ts']);
    expect(created.path).toBe(path.join(fixture.home, 'worktrees', projectId(workspace), 'sub'));
  });

  it('refuses outside a git repository with WORKTREE_NEEDS_GIT', async () => {
    const temp = await dir({ unsafeCleanup: true });
    try {
      const workspace = await realpath(temp.path);
      const host = { ...recordingHost(fixture), workspace };
      const error = await createWorktreeManager(host)
        .create({ name: 'x' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorktreeError);
      expect((error as WorktreeError).code).toBe('WORKTREE_NEEDS_GIT');
      expect((error as WorktreeError).message).toContain('Worktrees need git');
      expect(host.activeRoots).toEqual([]);
    } finally {
      await temp.cleanup();
    }
  });

  it('refuses a repository without commits, bad names and duplicates', async () => {
    const manager = createWorktreeManager(recordingHost(fixture));
    await expect(manager.create({ name: '../evil' })).rejects.toMatchObject({
      code: 'WORKTREE_INVALID_NAME',
    });
    await expect(manager.create({ name: 'a.lock' })).rejects.toMatchObject({ code: 'WORKTREE_INVALID_NAME' });
    await manager.create({ name: 'twice' });
    await expect(manager.create({ name: 'twice' })).rejects.toMatchObject({ code: 'WORKTREE_EXISTS' });

    const empty = await makeFixture({});
    try {
      await expect(createWorktreeManager(recordingHost(empty)).create({ name: 'x' })).rejects.toMatchObject({
        code: 'WORKTREE_NEEDS_GIT',
      });
    } finally {
      await empty.cleanup();
    }
  });

  it('keeps symlinks as symlinks and generates a name when none is given', async () => {
    const { symlink } = await import('node:fs/promises');
    await symlink('README.md', path.join(fixture.workspace, 'link.md'));
    const created = await createWorktreeManager(recordingHost(fixture)).create();
    expect(created.name).toMatch(/^wt-[0-9a-f]{8}$/);
    expect((await lstat(path.join(created.path, 'link.md'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(created.path, 'link.md'), 'utf8')).toBe('hello\n');
  });
});
