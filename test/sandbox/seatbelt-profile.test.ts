import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SandboxPolicy, SandboxPolicySchema } from '../../src/sandbox/policy-schema.js';
import type { ProtectedEntry } from '../../src/sandbox/sandbox-plan.js';
import { buildSeatbeltInvocation, toSeatbeltPath } from '../../src/sandbox/seatbelt-profile.js';
import { wrapCommand } from '../../src/sandbox/wrap-command.js';
import { type Fixture, git, makeFixture } from './fixture.js';

const golden = (name: string) => path.join(import.meta.dirname, 'golden', name);

function render(invocation: ReturnType<typeof buildSeatbeltInvocation>): string {
  return `${invocation.profile};; -D parameters\n${invocation.parameters.map(([name, value]) => `;; ${name}=${value}`).join('\n')}\n`;
}

const basePolicy: SandboxPolicy = {
  mode: 'workspace-write',
  workspace: '/Users/dev/project',
  homeDirectory: '/Users/dev',
  safeturnHome: '/Users/dev/.safeturn',
  writableRoots: [],
  denyRead: ['/Users/dev/.ssh', '/Users/dev/.aws', '/Users/dev/.netrc'],
  network: false,
  protectGit: true,
  allowEnv: [],
  readOnlyPaths: [],
};

const entry = (target: string, kind: ProtectedEntry['kind'], reason: string): ProtectedEntry => ({
  path: target,
  kind,
  exists: true,
  reason,
});

let fixture: Fixture;
afterEach(async () => {
  await fixture?.cleanup();
});

describe('Seatbelt profiles (macOS; generated here, golden-tested)', () => {
  it('golden: workspace-write by default, with a nested repo', async () => {
    const invocation = buildSeatbeltInvocation({
      policy: basePolicy,
      plan: {
        writable: ['/Users/dev/project'],
        protectedEntries: [
          entry('/Users/dev/project/.git', 'directory', 'git'),
          entry('/Users/dev/project/vendor/sub/.git', 'directory', 'git'),
        ],
      },
      temporaryDirectory: '/var/folders/xy/T/safeturn-sandbox-abc/tmp',
      argv: ['bash', '-lc', 'make test'],
    });
    await expect(render(invocation)).toMatchFileSnapshot(golden('workspace-write.sb'));
    expect(invocation.args.slice(-4)).toEqual(['--', 'bash', '-lc', 'make test']);
    expect(invocation.args[0]).toBe('-p');
    expect(invocation.temporaryDirectory).toBe('/private/var/folders/xy/T/safeturn-sandbox-abc/tmp');
  });

  it('golden: read-only, no deny list', async () => {
    const invocation = buildSeatbeltInvocation({
      policy: { ...basePolicy, mode: 'read-only', denyRead: [] },
      plan: { writable: [], protectedEntries: [] },
      temporaryDirectory: '/tmp/safeturn-sandbox-def/tmp',
      argv: ['ls'],
    });
    await expect(render(invocation)).toMatchFileSnapshot(golden('read-only.sb'));
  });

  it("golden: network on, writable roots under /tmp, protectGit 'hooks', HOME inside the workspace", async () => {
    const invocation = buildSeatbeltInvocation({
      policy: {
        ...basePolicy,
        workspace: '/Users/dev/ws',
        homeDirectory: '/Users/dev/ws/home',
        writableRoots: ['/tmp/npm-cache'],
        network: true,
        protectGit: 'hooks',
        allowEnv: ['NPM_TOKEN'],
      },
      plan: {
        writable: ['/Users/dev/ws', '/tmp/npm-cache'],
        protectedEntries: [
          entry('/Users/dev/ws/.git/config', 'file', 'git'),
          entry('/Users/dev/ws/.git/hooks', 'directory', 'hooks'),
          { path: '/Users/dev/ws/home/.bashrc', kind: 'file', exists: false, reason: 'home-rc' },
          { path: '/Users/dev/ws/home/.gitconfig', kind: 'file', exists: false, reason: 'home-rc' },
        ],
      },
      temporaryDirectory: '/tmp/safeturn-sandbox-ghi/tmp',
      argv: ['npm', 'install'],
    });
    await expect(render(invocation)).toMatchFileSnapshot(golden('network-hooks.sb'));
    expect(invocation.profile).not.toContain('/Users/dev');
    expect(invocation.parameters).toContainEqual(['WRITABLE_ROOT_1', '/private/tmp/npm-cache']);
  });

  it('(deny default) comes first, and paths never appear in the profile text', () => {
    const invocation = buildSeatbeltInvocation({
      policy: { ...basePolicy, workspace: '/Users/dev/we"ird) (allow default' },
      plan: { writable: ['/Users/dev/we"ird) (allow default'], protectedEntries: [] },
      temporaryDirectory: '/tmp/t',
      argv: ['true'],
    });
    expect(invocation.profile.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    expect(invocation.profile).not.toContain('we"ird');
    expect(invocation.args).toContain('-DWRITABLE_ROOT_0=/Users/dev/we"ird) (allow default');
  });

  it('/tmp, /var and /etc are resolved to /private', () => {
    expect(toSeatbeltPath('/tmp')).toBe('/private/tmp');
    expect(toSeatbeltPath('/tmp/x')).toBe('/private/tmp/x');
    expect(toSeatbeltPath('/var/folders/a')).toBe('/private/var/folders/a');
    expect(toSeatbeltPath('/tmpfoo')).toBe('/tmpfoo');
    expect(toSeatbeltPath('/Users/x/tmp')).toBe('/Users/x/tmp');
  });

  it('every policy field appears in the profile and changes what wrapCommand produces on macOS', async () => {
    fixture = await makeFixture({ homeInWorkspace: true });
    await git(fixture.workspace, ['init', '-q']);
    const extraRoot = path.join(fixture.base, 'extra');
    await mkdir(extraRoot);
    const inWorkspaceHome = path.join(fixture.workspace, 'state');
    await mkdir(inWorkspaceHome);
    fixture.env.SERVICE_TOKEN = 'secret';
    const base: SandboxPolicy = { ...(await fixture.policy()), safeturnHome: inWorkspaceHome };
    const support = { platform: 'darwin' as const, sandboxExecPath: '/usr/bin/sandbox-exec' };
    const produce = async (policy: SandboxPolicy) => {
      const wrapped = await wrapCommand(['true'], policy, { support, env: fixture.env });
      await wrapped.cleanup();
      expect(wrapped.file).toBe('/usr/bin/sandbox-exec');
      // The private temp dir's random name is not part of the comparison.
      const stable = wrapped.args.filter((arg) => !arg.startsWith('-DTMPDIR='));
      return JSON.stringify({ args: stable, env: { ...wrapped.env, TMPDIR: undefined } });
    };
    const baseline = await produce(base);
    const profile = JSON.parse(baseline).args[1] as string;
    const mutations: { [Key in keyof SandboxPolicy]: SandboxPolicy[Key] } = {
      mode: 'read-only',
      workspace: fixture.outside,
      homeDirectory: fixture.base,
      safeturnHome: fixture.safeturnHome,
      writableRoots: [extraRoot],
      denyRead: [...base.denyRead, '/opt/secret'],
      network: true,
      protectGit: 'hooks',
      allowEnv: ['SERVICE_TOKEN'],
      readOnlyPaths: [path.join(fixture.workspace, 'frozen')],
    };
    for (const field of Object.keys(SandboxPolicySchema.shape) as (keyof SandboxPolicy)[]) {
      expect(profile, `policy.${field} is named in the profile`).toContain(`policy.${field}`);
      const changed = await produce({ ...base, [field]: mutations[field] });
      expect(changed, `changing policy.${field} changes the invocation`).not.toBe(baseline);
    }
  });
});
