import { describe, expect, it } from 'vitest';
import { handleSandbox } from '../../src/sandbox/handle-sandbox.js';
import type { SandboxPolicy } from '../../src/sandbox/policy-schema.js';

const initial: SandboxPolicy = {
  mode: 'workspace-write',
  workspace: '/work/project',
  homeDirectory: '/home/dev',
  safeturnHome: '/home/dev/.safeturn',
  writableRoots: ['/home/dev/.npm'],
  denyRead: ['/home/dev/.ssh'],
  network: false,
  protectGit: true,
  allowEnv: [],
  readOnlyPaths: [],
};

function holder(policy: SandboxPolicy) {
  let current = policy;
  return {
    getPolicy: () => current,
    setPolicy: (next: SandboxPolicy) => {
      current = next;
    },
  };
}

describe('/sandbox', () => {
  it('without arguments shows the mode and what it allows', () => {
    const target = holder(initial);
    const result = handleSandbox(target, '');
    expect(result.text).toBe(
      'Sandbox mode: workspace-write. Commands can write /work/project, /home/dev/.npm and their private temp dir. Every .git stays read-only. 1 denyRead path(s) are hidden. Network: off.',
    );
    expect(result.data).toEqual({
      ok: true,
      mode: 'workspace-write',
      network: false,
      writable: ['/work/project', '/home/dev/.npm'],
      protectGit: true,
      denyReadCount: 1,
    });
  });

  it('switches modes by their full names; the change applies to the next call', () => {
    const target = holder(initial);
    const result = handleSandbox(target, ' danger-full-access ');
    expect(result.data).toMatchObject({
      ok: true,
      mode: 'danger-full-access',
      previousMode: 'workspace-write',
    });
    expect(result.text).toContain('No sandbox');
    expect(target.getPolicy()).toEqual({ ...initial, mode: 'danger-full-access' });
    expect(handleSandbox(target, 'workspace-write').data.mode).toBe('workspace-write');
    expect(handleSandbox(target, 'read-only').text).toBe(
      'Sandbox mode: read-only (was workspace-write). Commands can read everything except the denyRead paths and write only their private temp dir. Applies from the next command.',
    );
  });

  it('refuses anything else, abbreviations included, and leaves the policy unchanged', () => {
    const target = holder(initial);
    for (const args of ['danger', 'full', 'off', 'workspace-write extra']) {
      const result = handleSandbox(target, args);
      expect(result.data.ok).toBe(false);
      expect(result.text).toContain('Usage: /sandbox [read-only | workspace-write | danger-full-access]');
    }
    expect(target.getPolicy()).toBe(initial);
  });
});
