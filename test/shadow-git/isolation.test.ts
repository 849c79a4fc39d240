import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectId } from '../../src/core/home.js';
import { openShadowRepo, type ShadowRepo, shadowGitCommand } from '../../src/shadow-git/index.js';
import { fsck, hashTree, makeDirs, type TestDirs, walkWorkspace } from './helpers.js';

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

describe('isolation from the workspace', () => {
  it("never writes the workspace's own .git (rule 7), even when a turn lists .git paths", async () => {
    const userGit = { cwd: dirs.workspace, env: { HOME: dirs.userHome, GIT_CONFIG_NOSYSTEM: '1' } };
    await execa('git', ['init', '-q'], userGit);
    await writeFile(path.join(dirs.workspace, 'a.txt'), 'a\n');
    await execa('git', ['add', 'a.txt'], userGit);
    await execa(
      'git',
      ['-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-q', '-m', 'user commit'],
      userGit,
    );
    const before = await hashTree(path.join(dirs.workspace, '.git'));

    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      baselinePaths: await walkWorkspace(dirs.workspace),
    });
    await writeFile(path.join(dirs.workspace, 'a.txt'), 'a2\n');
    const queued = await repo.commitTurn({
      sessionId: 's1',
      turnId: 1,
      paths: ['a.txt', '.git/index', '.git/HEAD'],
    });
    await queued.committed;
    await repo.log();
    await repo.diff({ from: { sessionId: 's1', turnId: 1 } });
    await repo.close();

    expect(await hashTree(path.join(dirs.workspace, '.git'))).toBe(before);
    expect(queued.skippedPaths.map((skipped) => skipped.reason)).toEqual(['git-metadata', 'git-metadata']);
    const userLog = await execa('git', ['log', '--format=%s'], userGit);
    expect(userLog.stdout).toBe('user commit');
    expect(repo.gitdir).toBe(path.join(dirs.home, 'projects', projectId(dirs.workspace), 'shadow.git'));
  });

  it('works in a workspace that is not a git repository and adds nothing to it', async () => {
    await mkdir(path.join(dirs.workspace, 'src'));
    await writeFile(path.join(dirs.workspace, 'src', 'main.c'), 'int main(){}\n');
    const before = await readdir(dirs.workspace, { recursive: true });
    repo = await openShadowRepo({
      workspace: dirs.workspace,
      home: dirs.home,
      baselinePaths: ['src/main.c'],
    });
    await writeFile(path.join(dirs.workspace, 'src', 'main.c'), 'int main(){return 1;}\n');
    await (await repo.commitTurn({ sessionId: 's1', turnId: 1, paths: ['src/main.c'] })).committed;
    expect(await readdir(dirs.workspace, { recursive: true })).toEqual(before);
    expect((await stat(path.join(repo.gitdir, 'config'))).isFile()).toBe(true);
    expect(await fsck(repo.gitdir, dirs.userHome)).not.toMatch(/error|warning|missing|broken/i);
  });

  it('shadowGitCommand drops GIT_DIR & co. and ignores the user config', async () => {
    const command = shadowGitCommand({
      gitdir: '/tmp/x/shadow.git',
      args: ['log'],
      env: {
        PATH: '/usr/bin',
        GIT_DIR: '/home/u/project/.git',
        GIT_WORK_TREE: '/home/u/project',
        GIT_CONFIG_GLOBAL: '/home/u/.gitconfig',
      },
    });
    expect(command).toEqual({
      file: 'git',
      args: ['--git-dir=/tmp/x/shadow.git', 'log'],
      env: {
        PATH: '/usr/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
      },
    });
  });
});
