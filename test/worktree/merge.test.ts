import { access, chmod, lstat, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorktreeManager, WorktreeConflictError } from '../../src/worktree/index.js';
import {
  type Fixture,
  makeFixture,
  mtimeOf,
  type RecordingHost,
  recordingHost,
  treeState,
} from './helpers.js';

let fixture: Fixture;
let host: RecordingHost;
const binaryBase = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x03]);

beforeEach(async () => {
  fixture = await makeFixture({
    'README.md': 'hello\n',
    'lib/a.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n',
    'lib/b.txt': 'bee\n',
    'old/only.txt': 'will be deleted\n',
    'image.png': binaryBase,
    'build.sh': '#!/bin/sh\n',
  });
  host = recordingHost(fixture);
});
afterEach(async () => {
  await fixture.cleanup();
});

const inWorktree = (root: string, relative: string) => path.join(root, relative);

describe('merge', () => {
  it('brings non-overlapping changes back as uncommitted changes, three-way merging a file both sides edited', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'm' });
    await writeFile(inWorktree(root, 'lib/a.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN (agent)\n');
    await writeFile(inWorktree(root, 'lib/new.ts'), 'export {};\n');
    await fixture.write('lib/a.txt', 'ONE (user)\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    await fixture.write('user-only.txt', 'mine\n');
    const headBefore = await fixture.git(['rev-parse', 'HEAD']);

    const report = await manager.merge({ name: 'm' });

    expect(report.files).toEqual([
      { path: 'lib/a.txt', action: 'merged' },
      { path: 'lib/new.ts', action: 'written' },
    ]);
    expect(report.conflicts).toEqual([]);
    expect((await fixture.read('lib/a.txt')).toString()).toBe(
      'ONE (user)\ntwo\nthree\nfour\nfive\nsix\nSEVEN (agent)\n',
    );
    expect((await fixture.read('lib/new.ts')).toString()).toBe('export {};\n');
    expect((await fixture.read('user-only.txt')).toString()).toBe('mine\n');
    // Never a commit on the user's branch; the changes are unstaged working-tree changes.
    expect(await fixture.git(['rev-parse', 'HEAD'])).toBe(headBefore);
    expect(await fixture.git(['diff', '--cached', '--name-only'])).toBe('');
    expect(await fixture.git(['status', '--porcelain'])).toBe(
      ' M lib/a.txt\n?? lib/new.ts\n?? user-only.txt\n',
    );
    // The session works in the workspace again.
    expect(host.activeRoots).toEqual([root, undefined]);
  });

  it('calls the checkpoint seam before every write, with the pre-images, and after', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'seam' });
    await writeFile(inWorktree(root, 'lib/b.txt'), 'bee 2\n');
    await writeFile(inWorktree(root, 'c.txt'), 'new\n');
    await rm(inWorktree(root, 'old/only.txt'));
    await manager.merge({ name: 'seam' });
    expect(host.calls.map((call) => [call.phase, call.root, call.paths])).toEqual([
      ['before', fixture.workspace, ['c.txt', 'lib/b.txt', 'old/only.txt']],
      ['after', fixture.workspace, ['c.txt', 'lib/b.txt', 'old/only.txt']],
    ]);
    expect(host.calls[0]?.contents).toEqual([null, Buffer.from('bee\n'), Buffer.from('will be deleted\n')]);
    expect(host.calls[1]?.contents).toEqual([Buffer.from('new\n'), Buffer.from('bee 2\n'), null]);
    // The session is back in the workspace before the first write.
    expect(host.events).toEqual([`root ${root}`, 'root workspace', 'before', 'after']);
  });

  it("merge then rewind (the seam's pre-images) restores the pre-merge state byte for byte", async () => {
    await fixture.write('lib/a.txt', 'user edit\none\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'rw' });
    await writeFile(
      inWorktree(root, 'lib/a.txt'),
      'user edit\none\ntwo\nthree\nfour\nfive\nsix\nseven\nagent\n',
    );
    await writeFile(inWorktree(root, 'image.png'), Buffer.from([1, 0, 2]));
    await rm(inWorktree(root, 'lib/b.txt'));
    await writeFile(inWorktree(root, 'added.txt'), 'added\n');
    const before = await treeState(fixture.workspace);
    await manager.merge({ name: 'rw' });
    expect(await treeState(fixture.workspace)).not.toEqual(before);
    await host.rewind();
    expect(await treeState(fixture.workspace)).toEqual(before);
  });

  it('refuses the whole merge on a conflict, reports the hunks and changes nothing', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'c' });
    await writeFile(inWorktree(root, 'lib/a.txt'), 'one\nTWO agent\nthree\nfour\nfive\nsix\nseven\n');
    await writeFile(inWorktree(root, 'lib/b.txt'), 'bee agent\n');
    await writeFile(inWorktree(root, 'fresh.txt'), 'fresh\n');
    await fixture.write('lib/a.txt', 'one\nTWO user\nthree\nfour\nfive\nsix\nseven\n');
    const before = await treeState(fixture.workspace);
    const mtimes = await Promise.all(
      ['lib/a.txt', 'lib/b.txt'].map((file) => mtimeOf(path.join(fixture.workspace, file))),
    );

    const error = await manager.merge({ name: 'c' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorktreeConflictError);
    expect((error as WorktreeConflictError).code).toBe('WORKTREE_CONFLICT');
    expect((error as WorktreeConflictError).conflicts).toEqual([
      {
        path: 'lib/a.txt',
        kind: 'content',
        hunks: [{ oursLine: 2, ours: 'TWO user\n', base: 'two\n', theirs: 'TWO agent\n' }],
      },
    ]);
    expect(await treeState(fixture.workspace)).toEqual(before);
    expect(
      await Promise.all(
        ['lib/a.txt', 'lib/b.txt'].map((file) => mtimeOf(path.join(fixture.workspace, file))),
      ),
    ).toEqual(mtimes);
    expect(host.calls).toEqual([]);
    expect(host.activeRoots).toEqual([root]);
  });

  it('strategy markers writes git-style markers; ours and theirs pick a side per hunk', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'k' });
    await writeFile(inWorktree(root, 'lib/a.txt'), 'one\nTWO agent\nthree\nfour\nfive\nsix\nseven agent\n');
    await fixture.write('lib/a.txt', 'one\nTWO user\nthree\nfour\nfive\nsix\nseven\n');

    const report = await manager.merge({ name: 'k', strategy: 'markers' });
    expect(report.files).toEqual([{ path: 'lib/a.txt', action: 'resolved', resolution: 'markers' }]);
    expect((await fixture.read('lib/a.txt')).toString()).toBe(
      'one\n<<<<<<< ours (your folder)\nTWO user\n=======\nTWO agent\n>>>>>>> theirs (worktree k)\nthree\nfour\nfive\nsix\nseven agent\n',
    );

    await fixture.write('lib/a.txt', 'one\nTWO user\nthree\nfour\nfive\nsix\nseven\n');
    await manager.merge({ name: 'k', strategy: 'ours' });
    expect((await fixture.read('lib/a.txt')).toString()).toBe(
      'one\nTWO user\nthree\nfour\nfive\nsix\nseven agent\n',
    );

    await fixture.write('lib/a.txt', 'one\nTWO user\nthree\nfour\nfive\nsix\nseven\n');
    await manager.merge({ name: 'k', strategy: 'theirs' });
    expect((await fixture.read('lib/a.txt')).toString()).toBe(
      'one\nTWO agent\nthree\nfour\nfive\nsix\nseven agent\n',
    );
  });

  it('a file deleted in the worktree is deleted on merge (and its emptied folder); a file the user changed is a delete conflict', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'd' });
    await rm(inWorktree(root, 'old/only.txt'));
    await rm(inWorktree(root, 'lib/b.txt'));
    await fixture.write('lib/b.txt', 'bee user\n');
    await expect(manager.merge({ name: 'd' })).rejects.toMatchObject({
      code: 'WORKTREE_CONFLICT',
      conflicts: [{ path: 'lib/b.txt', kind: 'delete', hunks: [] }],
    });
    const report = await manager.merge({ name: 'd', strategy: 'ours' });
    expect(report.files).toEqual([{ path: 'old/only.txt', action: 'deleted' }]);
    await expect(access(path.join(fixture.workspace, 'old/only.txt'))).rejects.toThrow();
    await expect(access(path.join(fixture.workspace, 'old'))).rejects.toThrow();
    expect((await fixture.read('lib/b.txt')).toString()).toBe('bee user\n');
  });

  it('binary files: copied when only the worktree changed them, never text-merged when both did', async () => {
    const manager = createWorktreeManager(host);
    const agentBytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);
    const { path: root } = await manager.create({ name: 'b' });
    await writeFile(inWorktree(root, 'image.png'), agentBytes);
    await writeFile(inWorktree(root, 'blob.bin'), Buffer.from([0, 1, 2, 3, 255]));
    let report = await manager.merge({ name: 'b' });
    expect(report.files).toEqual([
      { path: 'blob.bin', action: 'written' },
      { path: 'image.png', action: 'written' },
    ]);
    expect(await fixture.read('image.png')).toEqual(agentBytes);
    expect(await fixture.read('blob.bin')).toEqual(Buffer.from([0, 1, 2, 3, 255]));

    const userBytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x11]);
    await fixture.write('image.png', userBytes);
    await fixture.git(['checkout', '--', 'image.png']);
    await fixture.write('image.png', userBytes);
    await expect(manager.merge({ name: 'b' })).rejects.toMatchObject({
      conflicts: [{ path: 'image.png', kind: 'binary', hunks: [] }],
    });
    expect(await fixture.read('image.png')).toEqual(userBytes);
    report = await manager.merge({ name: 'b', strategy: 'markers' });
    expect(await fixture.read('image.png')).toEqual(userBytes);
    expect(report.conflicts).toEqual([{ path: 'image.png', kind: 'binary', hunks: [] }]);
    report = await manager.merge({ name: 'b', strategy: 'theirs' });
    expect(await fixture.read('image.png')).toEqual(agentBytes);
    expect(report.files).toEqual([{ path: 'image.png', action: 'resolved', resolution: 'theirs' }]);
  });

  it('executable bits: a chmod in the worktree comes back; a new executable stays executable', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'x' });
    await chmod(inWorktree(root, 'build.sh'), 0o755);
    await writeFile(inWorktree(root, 'tool.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await chmod(inWorktree(root, 'tool.sh'), 0o755);
    const report = await manager.merge({ name: 'x' });
    expect(report.files).toEqual([
      { path: 'build.sh', action: 'mode' },
      { path: 'tool.sh', action: 'written' },
    ]);
    expect((await stat(path.join(fixture.workspace, 'build.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(fixture.workspace, 'tool.sh'))).mode & 0o777).toBe(0o755);
    expect((await fixture.read('build.sh')).toString()).toBe('#!/bin/sh\n');
  });

  it('symlinks come back as symlinks', async () => {
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 's' });
    await symlink('lib/b.txt', inWorktree(root, 'b-link'));
    await manager.merge({ name: 's' });
    expect((await lstat(path.join(fixture.workspace, 'b-link'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(fixture.workspace, 'b-link'))).toBe('lib/b.txt');
  });

  it('counts commits the agent made inside the worktree and keeps CRLF and missing final newlines', async () => {
    await fixture.write('crlf.txt', 'a\r\nb\r\nc\r\nd\r\ne');
    await fixture.git(['add', 'crlf.txt']);
    await fixture.git(['commit', '-qm', 'crlf']);
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'cr' });
    await writeFile(inWorktree(root, 'crlf.txt'), 'a\r\nb\r\nc\r\nd\r\nE');
    await writeFile(inWorktree(root, 'committed.txt'), 'by agent\n');
    await fixture.git(['add', '-A'], root);
    await fixture.git(['commit', '-qm', 'agent commit'], root);
    await fixture.write('crlf.txt', 'A\r\nb\r\nc\r\nd\r\ne');
    const report = await manager.merge({ name: 'cr' });
    expect(report.files).toEqual([
      { path: 'committed.txt', action: 'written' },
      { path: 'crlf.txt', action: 'merged' },
    ]);
    expect((await fixture.read('crlf.txt')).toString()).toBe('A\r\nb\r\nc\r\nd\r\nE');
  });

  it('a merge of a worktree with no changes writes nothing and skips the seam', async () => {
    const manager = createWorktreeManager(host);
    await manager.create({ name: 'none' });
    const report = await manager.merge({ name: 'none' });
    expect(report.files).toEqual([]);
    expect(host.calls).toEqual([]);
  });

  it('included ignored files: an edit and a new matching file come back, other ignored files stay behind', async () => {
    await fixture.write('.gitignore', '.env*\nbuild/\n');
    await fixture.git(['add', '.gitignore']);
    await fixture.git(['commit', '-qm', 'ignore']);
    await fixture.write('.env', 'A=1\n');
    const manager = createWorktreeManager(host);
    const { path: root } = await manager.create({ name: 'env', include: ['.env*'] });
    await writeFile(inWorktree(root, '.env'), 'A=2\n');
    await writeFile(inWorktree(root, '.env.local'), 'B=1\n');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(inWorktree(root, 'build'));
    await writeFile(inWorktree(root, 'build/out.js'), 'built\n');
    const report = await manager.merge({ name: 'env' });
    expect(report.files).toEqual([
      { path: '.env', action: 'written' },
      { path: '.env.local', action: 'written' },
    ]);
    expect((await fixture.read('.env')).toString()).toBe('A=2\n');
    expect((await fixture.read('.env.local')).toString()).toBe('B=1\n');
    await expect(access(path.join(fixture.workspace, 'build'))).rejects.toThrow();
  });

  it('an invalid safeturn.config.json fails create with INVALID_CONFIG and leaves nothing behind', async () => {
    await fixture.write('safeturn.config.json', '{"worktree": {"include": ".env"}}');
    const manager = createWorktreeManager(host);
    await expect(manager.create({ name: 'bad' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect(await manager.list()).toEqual([]);
    expect(await fixture.git(['branch', '--list', '--format=%(refname:short)'])).toBe('main\n');
    expect((await fixture.git(['worktree', 'list', '--porcelain'])).match(/^worktree /gm)).toHaveLength(1);
    expect(host.activeRoots).toEqual([]);
  });
});
