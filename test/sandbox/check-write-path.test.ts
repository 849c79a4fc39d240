import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWritePath } from '../../src/sandbox/check-write-path.js';
import { type Fixture, makeFixture } from './fixture.js';

let fixture: Fixture;
afterEach(async () => {
  await fixture?.cleanup();
});

describe('checkWritePath: the write tools obey the same policy as bash', () => {
  it('allows the workspace and writable roots, refuses outside, through symlinks and in read-only mode', async () => {
    fixture = await makeFixture();
    const cache = path.join(fixture.outside, 'cache');
    await mkdir(cache);
    const policy = await fixture.policy({ writableRoots: [cache] });
    expect(await checkWritePath(policy, path.join(fixture.workspace, 'src', 'a.ts'))).toEqual({
      allowed: true,
      path: path.join(fixture.workspace, 'src', 'a.ts'),
    });
    expect((await checkWritePath(policy, path.join(cache, 'x'))).allowed).toBe(true);
    const outside = await checkWritePath(policy, path.join(fixture.outside, 'x'));
    expect(outside).toMatchObject({ allowed: false, reason: 'outside-writable-roots' });
    // case S6 for the write tools: a planted symlink, to a file and to a directory.
    await writeFile(path.join(fixture.outside, 'target'), '');
    await symlink(path.join(fixture.outside, 'target'), path.join(fixture.workspace, 'link'));
    await symlink(fixture.outside, path.join(fixture.workspace, 'dirlink'));
    expect(await checkWritePath(policy, path.join(fixture.workspace, 'link'))).toMatchObject({
      allowed: false,
      reason: 'outside-writable-roots',
      path: path.join(fixture.outside, 'target'),
    });
    expect((await checkWritePath(policy, path.join(fixture.workspace, 'dirlink', 'new.txt'))).allowed).toBe(
      false,
    );
    const readOnly = await checkWritePath(
      { ...policy, mode: 'read-only' },
      path.join(fixture.workspace, 'a'),
    );
    expect(readOnly).toMatchObject({ allowed: false, reason: 'read-only-mode' });
    expect((await checkWritePath({ ...policy, mode: 'danger-full-access' }, '/etc/anything')).allowed).toBe(
      true,
    );
    expect((await checkWritePath(policy, 'relative.txt')).allowed).toBe(false);
  });

  it("refuses .git at any depth; with protectGit 'hooks' only hooks/, config and the .git file itself", async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy();
    const hooks = await fixture.policy({ protectGit: 'hooks' });
    const at = (...parts: string[]) => path.join(fixture.workspace, ...parts);
    expect(await checkWritePath(policy, at('.git', 'HEAD'))).toMatchObject({
      allowed: false,
      reason: 'protected-git',
    });
    expect((await checkWritePath(policy, at('vendor', 'sub', '.git', 'hooks', 'pre-commit'))).allowed).toBe(
      false,
    );
    expect((await checkWritePath(hooks, at('.git', 'HEAD'))).allowed).toBe(true);
    expect((await checkWritePath(hooks, at('.git', 'hooks', 'pre-commit'))).allowed).toBe(false);
    expect((await checkWritePath(hooks, at('vendor', 'sub', '.git', 'config'))).allowed).toBe(false);
    expect(
      (await checkWritePath(hooks, at('.git', 'modules', 'sub', 'hooks', 'post-checkout'))).allowed,
    ).toBe(false);
    expect((await checkWritePath(hooks, at('wt', '.git'))).allowed).toBe(false);
    expect((await checkWritePath(policy, at('.github', 'workflows', 'ci.yml'))).allowed).toBe(true);
  });

  it('refuses HOME rc files (case S2), safeturn home, the config file, readOnlyPaths and denyRead paths', async () => {
    fixture = await makeFixture({ homeInWorkspace: true });
    const policy = await fixture.policy({ readOnlyPaths: [path.join(fixture.workspace, 'frozen')] });
    for (const target of [
      path.join(fixture.home, '.bashrc'),
      path.join(fixture.home, '.gitconfig'),
      path.join(fixture.home, '.config', 'git', 'config'),
      path.join(fixture.workspace, 'safeturn.config.json'),
      path.join(fixture.workspace, 'frozen', 'x'),
    ]) {
      expect(await checkWritePath(policy, target), target).toMatchObject({
        allowed: false,
        reason: 'protected-path',
      });
    }
    expect(await checkWritePath(policy, path.join(fixture.home, '.ssh', 'authorized_keys'))).toMatchObject({
      allowed: false,
      reason: 'deny-read',
    });
    expect((await checkWritePath(policy, path.join(fixture.home, 'notes.txt'))).allowed).toBe(true);
    const stateInside = { ...policy, safeturnHome: path.join(fixture.workspace, '.state') };
    expect((await checkWritePath(stateInside, path.join(fixture.workspace, '.state', 'x'))).allowed).toBe(
      false,
    );
  });
});
