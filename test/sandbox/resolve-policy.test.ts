import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SafeturnError } from '../../src/errors/safeturn-error.js';
import { DEFAULT_DENY_READ } from '../../src/sandbox/default-deny-read.js';
import { resolvePolicy } from '../../src/sandbox/resolve-policy.js';
import { type Fixture, makeFixture } from './fixture.js';

let fixture: Fixture;
afterEach(async () => {
  await fixture?.cleanup();
});

async function policyError(run: () => Promise<unknown>): Promise<SafeturnError> {
  try {
    await run();
  } catch (error) {
    if (SafeturnError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a SafeturnError');
}

describe('resolvePolicy', () => {
  it('fills in the defaults: workspace-write, network off, .git read-only, default deny list', async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy();
    expect(policy).toEqual({
      mode: 'workspace-write',
      workspace: fixture.workspace,
      homeDirectory: fixture.home,
      safeturnHome: fixture.safeturnHome,
      writableRoots: [],
      denyRead: DEFAULT_DENY_READ.map((entry) => path.join(fixture.home, entry.slice(2))),
      network: false,
      protectGit: true,
      allowEnv: [],
      readOnlyPaths: [],
    });
  });

  it('merges defaults, the config file and per-call overrides in that order', async () => {
    fixture = await makeFixture();
    const cache = path.join(fixture.base, 'cache');
    const other = path.join(fixture.base, 'other');
    await mkdir(cache);
    await mkdir(other);
    await writeFile(
      path.join(fixture.workspace, 'safeturn.config.json'),
      JSON.stringify({
        sandbox: { network: true, writableRoots: [cache], denyRead: ['~/secrets'], allowEnv: ['A_TOKEN'] },
      }),
    );
    const policy = await resolvePolicy(
      { writableRoots: [other], denyRead: ['/opt/private'], protectGit: 'hooks', useDefaultDenyRead: false },
      { workspace: fixture.workspace, env: fixture.env },
    );
    expect(policy.network).toBe(true);
    expect(policy.writableRoots).toEqual([other]);
    expect(policy.denyRead).toEqual([path.join(fixture.home, 'secrets'), '/opt/private']);
    expect(policy.allowEnv).toEqual(['A_TOKEN']);
    expect(policy.protectGit).toBe('hooks');
  });

  it('reads an explicit config path; a missing explicit file is an error, a missing default file is not', async () => {
    fixture = await makeFixture();
    const file = path.join(fixture.base, 'ci.json');
    await writeFile(file, JSON.stringify({ sandbox: { mode: 'read-only' } }));
    expect(
      (await resolvePolicy({}, { workspace: fixture.workspace, env: fixture.env, configPath: file })).mode,
    ).toBe('read-only');
    const error = await policyError(() =>
      resolvePolicy(
        {},
        {
          workspace: fixture.workspace,
          env: fixture.env,
          configPath: path.join(fixture.base, 'missing.json'),
        },
      ),
    );
    expect(error.code).toBe('SANDBOX_POLICY');
    expect(error.message).toContain('missing.json');
  });

  it('an invalid config file is an error naming the field, never replaced by defaults', async () => {
    fixture = await makeFixture();
    const file = path.join(fixture.workspace, 'safeturn.config.json');
    await writeFile(file, JSON.stringify({ sandbox: { network: 'yes' } }));
    const wrongType = await policyError(() => fixture.policy());
    expect(wrongType.code).toBe('SANDBOX_POLICY');
    expect(wrongType.data.field).toBe('sandbox.network');
    expect(wrongType.data.file).toBe(file);
    expect(wrongType.message).toContain(`in ${file}: sandbox.network:`);

    await writeFile(file, JSON.stringify({ sandbox: { netwrok: false } }));
    expect((await policyError(() => fixture.policy())).message).toContain('netwrok');

    await writeFile(file, JSON.stringify({ sandbox: { denyRead: ['~/.ssh', 'relative/path'] } }));
    expect((await policyError(() => fixture.policy())).data.field).toBe('sandbox.denyRead[1]');

    await writeFile(file, '{ "sandbox": ');
    const broken = await policyError(() => fixture.policy());
    expect(broken.message).toContain('not valid JSON');
  });

  it('case S3: a deny-read path that covers the workspace or its parent is refused', async () => {
    fixture = await makeFixture();
    const parent = await policyError(() => fixture.policy({ denyRead: [fixture.base] }));
    expect(parent.code).toBe('SANDBOX_POLICY');
    expect(parent.data.field).toBe('overrides.denyRead[0]');
    expect(parent.message).toContain(`covers the workspace ${fixture.workspace}`);
    expect((await policyError(() => fixture.policy({ denyRead: [fixture.workspace] }))).data.field).toBe(
      'overrides.denyRead[0]',
    );
    // HOME is the workspace's parent: the default ~/.ssh is fine, but denying ~ itself is not.
    expect((await policyError(() => fixture.policy({ denyRead: ['/'] }))).code).toBe('SANDBOX_POLICY');
    // Through a symlink to the parent, too.
    await symlink(fixture.base, path.join(fixture.outside, 'sneaky'));
    expect(
      (await policyError(() => fixture.policy({ denyRead: [path.join(fixture.outside, 'sneaky')] }))).data
        .field,
    ).toBe('overrides.denyRead[0]');
  });

  it('a writable root that is a symlink, resolves through one, or is missing is refused', async () => {
    fixture = await makeFixture();
    await symlink('/etc', path.join(fixture.base, 'looks-local'));
    const linked = await policyError(() =>
      fixture.policy({ writableRoots: [path.join(fixture.base, 'looks-local')] }),
    );
    expect(linked.data.field).toBe('overrides.writableRoots[0]');
    expect(linked.message).toContain('resolves through a symlink to /etc');
    await mkdir(path.join(fixture.outside, 'real'));
    await symlink(fixture.outside, path.join(fixture.base, 'via'));
    const through = await policyError(() =>
      fixture.policy({ writableRoots: [path.join(fixture.base, 'via', 'real')] }),
    );
    expect(through.message).toContain(`to ${path.join(fixture.outside, 'real')}`);
    expect(
      (await policyError(() => fixture.policy({ writableRoots: [path.join(fixture.base, 'nope')] }))).message,
    ).toContain('not an existing directory');
  });

  it('globs are refused as unenforceable; a deny-read path covering a writable root is refused', async () => {
    fixture = await makeFixture();
    const glob = await policyError(() => fixture.policy({ denyRead: ['~/**/*.pem'] }));
    expect(glob.data.field).toBe('overrides.denyRead[0]');
    expect(glob.message).toContain('globs cannot be enforced');
    const cache = path.join(fixture.outside, 'cache');
    await mkdir(cache);
    const covering = await policyError(() =>
      fixture.policy({ writableRoots: [cache], denyRead: [fixture.outside] }),
    );
    expect(covering.message).toContain(`covers the writable root ${cache}`);
  });

  it('danger-full-access only when named; a workspace of / is refused otherwise', async () => {
    fixture = await makeFixture();
    expect((await fixture.policy({ mode: 'danger-full-access' })).mode).toBe('danger-full-access');
    const root = await policyError(() =>
      resolvePolicy({}, { workspace: '/', env: { ...fixture.env, HOME: fixture.home } }),
    );
    expect(root.data.field).toBe('workspace');
  });
});
