import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openShadowRepo, type ShadowRepo } from '../../src/shadow-git/index.js';
import {
  bytes,
  changesOf,
  fsck,
  lsTree,
  makeDirs,
  shadowGit,
  shadowGitBytes,
  steppingClock,
  type TestDirs,
  walkWorkspace,
} from './helpers.js';

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

async function write(relative: string, content: string | Buffer, mode = 0o644): Promise<void> {
  const absolute = path.join(dirs.workspace, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
  await chmod(absolute, mode);
}

describe('commitTurn', () => {
  it("a turn's commit holds exactly the turn's changes: added, modified, deleted, exec bit, symlink", async () => {
    await write('a.txt', 'alpha\n');
    await write('b.txt', 'bravo\n');
    await write('run.sh', '#!/bin/sh\necho hi\n');
    await write('dir/c.txt', 'charlie\n');
    await write('keep.txt', 'untouched\n');
    await symlink('a.txt', path.join(dirs.workspace, 'link'));
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    const baseline = await repo.ensureBaseline({ paths: await walkWorkspace(dirs.workspace) });
    expect(await changesOf(repo.gitdir, dirs.userHome, baseline)).toEqual([
      'A 000000->100644 a.txt',
      'A 000000->100644 b.txt',
      'A 000000->100644 dir/c.txt',
      'A 000000->100644 keep.txt',
      'A 000000->100644 run.sh',
      'A 000000->120000 link',
    ]);

    await write('a.txt', 'alpha two\n');
    await write('new/deep/n.txt', 'new file\n');
    await rm(path.join(dirs.workspace, 'b.txt'));
    await chmod(path.join(dirs.workspace, 'run.sh'), 0o755);
    await rm(path.join(dirs.workspace, 'link'));
    await symlink('dir/c.txt', path.join(dirs.workspace, 'link'));
    await symlink('../outside/secret', path.join(dirs.workspace, 'out-link'));
    const paths = ['a.txt', 'new/deep/n.txt', 'b.txt', 'run.sh', 'link', 'out-link'];
    const queued = await repo.commitTurn({ sessionId: 's1', turnId: 1, label: 'edit things', paths });
    const commit = await queued.committed;

    expect(await changesOf(repo.gitdir, dirs.userHome, commit)).toEqual([
      'A 000000->100644 new/deep/n.txt',
      'A 000000->120000 out-link',
      'D 100644->000000 b.txt',
      'M 100644->100644 a.txt',
      'M 100644->100755 run.sh',
      'M 120000->120000 link',
    ]);
    const tree = await lsTree(repo.gitdir, dirs.userHome, commit);
    expect([...tree.keys()].sort()).toEqual(await walkWorkspace(dirs.workspace));
    expect(await shadowGitBytes(repo.gitdir, dirs.userHome, ['cat-file', 'blob', `${commit}:link`])).toEqual(
      Buffer.from('dir/c.txt'),
    );
    expect(
      await shadowGitBytes(repo.gitdir, dirs.userHome, ['cat-file', 'blob', `${commit}:out-link`]),
    ).toEqual(Buffer.from('../outside/secret'));
    expect(await shadowGitBytes(repo.gitdir, dirs.userHome, ['show', `${commit}:a.txt`])).toEqual(
      Buffer.from('alpha two\n'),
    );
    expect(tree.get('keep.txt')).toEqual(
      (await lsTree(repo.gitdir, dirs.userHome, baseline)).get('keep.txt'),
    );
    expect(await shadowGit(repo.gitdir, dirs.userHome, ['rev-parse', 'refs/safeturn/s1^'])).toBe(
      `${baseline}\n`,
    );
    const message = await shadowGit(repo.gitdir, dirs.userHome, [
      'log',
      '-1',
      '--format=%an <%ae>%n%B',
      'refs/safeturn/s1',
    ]);
    expect(message).toContain('safeturn <safeturn@localhost>\nsafeturn turn 1 [s1]: edit things\n');
    expect(message).toMatch(
      /\n\nSafeturn-Kind: turn\nSafeturn-Session: s1\nSafeturn-Turn: 1\nSafeturn-Label: "edit things"\nSafeturn-Time: 2026-01-01T00:00:03\.000Z\nSafeturn-Record: \d{15}-000001-[0-9a-f]{12}\n/,
    );
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });

  it('file -> directory, directory -> file, a removed directory, and unusual names', async () => {
    const names = [
      '报告.txt',
      ' leading-space.txt',
      'a b.txt',
      'emoji-😀.md',
      'tab\there.txt',
      'new\nline.txt',
    ];
    await write('thing', 'file first\n');
    await write('folder/x.txt', 'x\n');
    await write('gone/one.txt', '1\n');
    await write('gone/sub/two.txt', '2\n');
    for (const name of names) await write(name, `old ${name}\n`);
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    await repo.ensureBaseline({ paths: await walkWorkspace(dirs.workspace) });

    await rm(path.join(dirs.workspace, 'thing'));
    await write('thing/inner.txt', 'now a directory\n');
    await rm(path.join(dirs.workspace, 'folder'), { recursive: true });
    await write('folder', 'now a file\n');
    await rm(path.join(dirs.workspace, 'gone'), { recursive: true });
    for (const name of names) {
      await write(name, `new ${name}\n`);
      await write(`created-${name}`, `created ${name}\n`);
    }
    const paths = [
      'thing/inner.txt',
      'thing',
      'folder',
      'folder/x.txt',
      'gone',
      ...names,
      ...names.map((name) => `created-${name}`),
    ];
    const commit = await (await repo.commitTurn({ sessionId: 's1', turnId: 't-1', paths })).committed;
    const tree = await lsTree(repo.gitdir, dirs.userHome, commit);
    expect([...tree.keys()].sort()).toEqual(await walkWorkspace(dirs.workspace));
    for (const name of names) {
      expect(await repo.show({ turn: { sessionId: 's1', turnId: 't-1' }, path: name })).toEqual(
        bytes(`new ${name}\n`),
      );
      expect(await repo.show({ turn: commit, path: `created-${name}` })).toEqual(bytes(`created ${name}\n`));
    }
    expect(await repo.show({ turn: commit, path: 'thing/inner.txt' })).toEqual(bytes('now a directory\n'));
    expect(await repo.show({ turn: commit, path: 'gone/sub/two.txt' })).toBeUndefined();
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });

  it('skips with a reason what it cannot store: too large, .git metadata, a fifo; keeps the rest', async () => {
    await write('small.txt', 'small\n');
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      now: steppingClock(),
      maxFileBytes: 1024,
    });
    await write('big.bin', Buffer.alloc(2048, 7));
    await write('.git/config', '[core]\n');
    await write('sub/.GIT/hooks/x', 'x\n');
    await write('small.txt', 'small 2\n');
    const { execa } = await import('execa');
    await execa('mkfifo', [path.join(dirs.workspace, 'pipe')]);
    const queued = await repo.commitTurn({
      sessionId: 's1',
      turnId: 1,
      paths: ['big.bin', '.git/config', 'sub/.GIT/hooks/x', 'small.txt', 'pipe'],
    });
    expect(queued.skippedPaths).toEqual([
      { path: '.git/config', reason: 'git-metadata' },
      { path: 'big.bin', reason: 'too-large' },
      { path: 'pipe', reason: 'not-a-regular-file' },
      { path: 'sub/.GIT/hooks/x', reason: 'git-metadata' },
    ]);
    const commit = await queued.committed;
    expect([...(await lsTree(repo.gitdir, dirs.userHome, commit)).keys()]).toEqual(['small.txt']);
    const [entry] = await repo.log({ limit: 1 });
    expect(entry?.skippedPaths).toEqual(queued.skippedPaths);
    expect(entry?.changedPaths).toEqual(['small.txt']);
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });

  it('refuses paths that are not plain workspace-relative paths', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    await expect(repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['../x'] })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKSPACE',
    });
    await expect(
      repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['/etc/passwd'] }),
    ).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(repo.commitTurn({ sessionId: '_bad', turnId: 1, paths: [] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('reads a file below a symlinked directory as absent, never through the link', async () => {
    await mkdir(path.join(dirs.userHome, 'outside'), { recursive: true });
    await writeFile(path.join(dirs.userHome, 'outside', 'secret.txt'), 'secret\n');
    await symlink(path.join(dirs.userHome, 'outside'), path.join(dirs.workspace, 'linked'));
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    const commit = await (
      await repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['linked', 'linked/secret.txt'] })
    ).committed;
    const tree = await lsTree(repo.gitdir, dirs.userHome, commit);
    expect([...tree.entries()].map(([name, entry]) => `${entry.mode} ${name}`)).toEqual(['120000 linked']);
    expect(await readFile(path.join(dirs.userHome, 'outside', 'secret.txt'), 'utf8')).toBe('secret\n');
  });
});

describe('handle lifecycle', () => {
  it('an aborted commitTurn queues nothing; a closed handle refuses commits', async () => {
    await write('a.txt', 'a\n');
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home });
    const controller = new AbortController();
    controller.abort();
    await expect(
      repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['a.txt'], abortSignal: controller.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(await readdir(path.join(repo.gitdir, 'safeturn', 'pending'))).toEqual([]);
    expect(await repo.log()).toEqual([]);
    await repo.close();
    await expect(repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['a.txt'] })).rejects.toMatchObject({
      code: 'SHADOW_GIT',
      data: { reason: 'closed' },
    });
  });
});

describe('session refs', () => {
  it('a session id that is not a valid git ref name still gets its own ref', async () => {
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, now: steppingClock() });
    for (const [index, sessionId] of ['.hidden', 'x.lock', 'a..b', 'plain-1.2'].entries()) {
      await write(`f${index}.txt`, `${sessionId}\n`);
      await (await repo.commitTurn({ sessionId, turnId: 1, paths: [`f${index}.txt`] })).committed;
    }
    const refs = await shadowGit(repo.gitdir, dirs.userHome, ['for-each-ref', '--format=%(refname)']);
    expect(refs.trim().split('\n').sort()).toEqual([
      'refs/safeturn/_x2e68696464656e',
      'refs/safeturn/_x612e2e62',
      'refs/safeturn/_x782e6c6f636b',
      'refs/safeturn/plain-1.2',
    ]);
    for (const [index, sessionId] of ['.hidden', 'x.lock', 'a..b', 'plain-1.2'].entries()) {
      const [entry] = await repo.log({ session: sessionId });
      expect(entry?.changedPaths).toEqual([`f${index}.txt`]);
    }
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });
});

describe('baseline', () => {
  async function* walk(directory: string, prefix = ''): AsyncGenerator<string> {
    const { readdir: list } = await import('node:fs/promises');
    for (const entry of await list(directory, { withFileTypes: true })) {
      const relative = `${prefix}${entry.name}`;
      if (entry.isDirectory()) yield* walk(path.join(directory, entry.name), `${relative}/`);
      else yield relative;
    }
  }

  it('takes the covered files from an async iterable once; a second open keeps the first baseline', async () => {
    await write('a.txt', 'a\n');
    await write('src/b.ts', 'b\n');
    await write('tools/run.sh', '#!/bin/sh\n', 0o755);
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      baselinePaths: walk(dirs.workspace),
    });
    const baseline = await repo.baselineId();
    const tree = await lsTree(repo.gitdir, dirs.userHome, baseline!);
    expect([...tree.entries()].map(([name, entry]) => `${entry.mode} ${name}`)).toEqual([
      '100644 a.txt',
      '100644 src/b.ts',
      '100755 tools/run.sh',
    ]);
    await repo.close();
    await write('c.txt', 'c\n');
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      baselinePaths: walk(dirs.workspace),
    });
    expect(await repo.baselineId()).toBe(baseline);
    expect((await repo.log()).map((entry) => entry.kind)).toEqual(['baseline']);
  });
});

describe('tree format', () => {
  it('the baseline tree has the very id real git computes for the same files (sorting, modes, links)', async () => {
    const names = [
      'a',
      'a-b',
      'a.b',
      'a0',
      'ab',
      'B',
      'z/a',
      'zz',
      'é.txt',
      'e\u0301.txt',
      '😀',
      'sp ace',
      'x/y/z.txt',
      'x.y',
    ];
    for (const name of names.filter((entry) => entry !== 'a')) await write(name, `${name}\n`);
    await write('a/inner.txt', 'inner\n');
    await write('tool.sh', '#!/bin/sh\n', 0o755);
    await symlink('a/inner.txt', path.join(dirs.workspace, 'link'));
    const paths = await walkWorkspace(dirs.workspace);
    repo = await openShadowRepo({ workspace: dirs.workspace, home: dirs.home, baselinePaths: paths });
    const ours = await shadowGit(repo.gitdir, dirs.userHome, [
      'rev-parse',
      `${await repo.baselineId()}^{tree}`,
    ]);
    const { execa } = await import('execa');
    const gitEnv = { HOME: dirs.userHome, GIT_CONFIG_NOSYSTEM: '1' };
    const copy = path.join(dirs.userHome, 'copy');
    await execa('cp', ['-a', dirs.workspace, copy]);
    await execa('git', ['init', '-q'], { cwd: copy, env: gitEnv });
    await execa('git', ['add', '-A'], { cwd: copy, env: gitEnv });
    const theirs = await execa('git', ['write-tree'], { cwd: copy, env: gitEnv });
    expect(ours.trim()).toBe(theirs.stdout.trim());
  });
});
