import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SafeturnError } from '../../src/errors/safeturn-error.js';
import type { SandboxPolicy } from '../../src/sandbox/policy-schema.js';
import { buildUnixSocketFilter } from '../../src/sandbox/seccomp-filter.js';
import { wrapCommand } from '../../src/sandbox/wrap-command.js';
import { type Fixture, makeFixture } from './fixture.js';

let fixture: Fixture;
afterEach(async () => {
  await fixture?.cleanup();
});

async function codeOf(run: () => Promise<unknown>): Promise<SafeturnError> {
  try {
    await run();
  } catch (error) {
    if (SafeturnError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a SafeturnError');
}

const linuxSupport = {
  platform: 'linux' as const,
  bwrapPath: '/usr/bin/bwrap',
  version: '0.8.0',
  features: { disableUserns: true, argv0: false },
  architecture: 'x64',
};

describe('wrapCommand', () => {
  it('danger-full-access runs the argv as is (no detection needed), still with a scrubbed environment', async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy({ mode: 'danger-full-access' });
    const wrapped = await wrapCommand(['bash', '-lc', 'ls'], policy, {
      platform: 'win32',
      env: { PATH: '/bin', NPM_TOKEN: 'x' },
    });
    expect(wrapped.file).toBe('bash');
    expect(wrapped.args).toEqual(['-lc', 'ls']);
    expect(wrapped.env).toEqual({ PATH: '/bin' });
    expect(wrapped.droppedEnv).toEqual(['NPM_TOKEN']);
    expect(wrapped.extraStdio).toEqual([]);
  });

  it('refuses an invalid policy object, an empty argv and a cwd outside the workspace', async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy();
    const invalid = await codeOf(() =>
      wrapCommand(['true'], { ...policy, mode: 'off' } as unknown as SandboxPolicy),
    );
    expect(invalid.code).toBe('SANDBOX_POLICY');
    expect(invalid.data.field).toBe('mode');
    expect((await codeOf(() => wrapCommand([], policy, { support: linuxSupport }))).data.field).toBe('argv');
    const outside = await codeOf(() =>
      wrapCommand(['true'], policy, { support: linuxSupport, cwd: fixture.outside }),
    );
    expect(outside.data.field).toBe('cwd');
  });

  it("seccompDelivery 'file' uses a constant /bin/sh trampoline and a filter file in the private temp dir", async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy();
    const wrapped = await wrapCommand(['bash', '-lc', 'echo "$HOME"'], policy, {
      support: linuxSupport,
      env: fixture.env,
      seccompDelivery: 'file',
    });
    expect(wrapped.file).toBe('/bin/sh');
    expect(wrapped.args.slice(0, 3)).toEqual(['-c', 'f=$1; shift; exec "$@" 3<"$f"', 'safeturn-sandbox']);
    const filterFile = wrapped.args[3]!;
    expect(new Uint8Array(await readFile(filterFile))).toEqual(buildUnixSocketFilter('x64'));
    expect(wrapped.args[4]).toBe('/usr/bin/bwrap');
    expect(wrapped.args.slice(-4)).toEqual(['--', 'bash', '-lc', 'echo "$HOME"']);
    const report = await wrapped.cleanup();
    expect(report.temporaryDirectoryRemoved).toBe(true);
    expect(existsSync(filterFile)).toBe(false);
    expect(await wrapped.cleanup()).toBe(report);
  });

  it('network on: no seccomp program and no --unshare-net', async () => {
    fixture = await makeFixture();
    const wrapped = await wrapCommand(['true'], await fixture.policy({ network: true }), {
      support: linuxSupport,
      env: fixture.env,
    });
    expect(wrapped.extraStdio).toEqual([]);
    expect(wrapped.args).not.toContain('--unshare-net');
    expect(wrapped.args).not.toContain('--seccomp');
    await wrapped.cleanup();
  });
});
