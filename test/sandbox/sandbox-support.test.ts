import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SafeturnError } from '../../src/errors/safeturn-error.js';
import { runSandboxed } from '../../src/sandbox/run-sandboxed.js';
import { sandboxCheck } from '../../src/sandbox/sandbox-check.js';
import { detectSandboxSupport } from '../../src/sandbox/sandbox-support.js';
import { SandboxUnavailableError } from '../../src/sandbox/sandbox-unavailable-error.js';
import { wrapCommand } from '../../src/sandbox/wrap-command.js';
import { type Fixture, makeFixture } from './fixture.js';

let fixture: Fixture;
afterEach(async () => {
  await fixture?.cleanup();
});

async function unavailable(run: () => Promise<unknown>): Promise<SandboxUnavailableError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return error;
    throw error;
  }
  throw new Error('expected SandboxUnavailableError');
}

/** A fake bwrap: reports `version`, and fails every other call with `stderr`. */
async function fakeBwrap(directory: string, version: string, stderr: string): Promise<string> {
  const file = path.join(directory, 'bwrap');
  await writeFile(
    file,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "bubblewrap ${version}"; exit 0; fi\necho "${stderr}" >&2\nexit 1\n`,
  );
  await chmod(file, 0o755);
  return file;
}

describe('sandbox availability', () => {
  it('an unsupported platform is SANDBOX_UNAVAILABLE naming the platform and the way out', async () => {
    const error = await unavailable(() => detectSandboxSupport({ platform: 'win32' }));
    expect(error.code).toBe('SANDBOX_UNAVAILABLE');
    expect(error.data.cause).toBe('unsupported-platform');
    expect(error.message).toContain('not win32');
    expect(error.message).toContain("'danger-full-access' explicitly");
    expect(SafeturnError.isInstance(error)).toBe(true);
  });

  it('a missing bwrap is SANDBOX_UNAVAILABLE with the install command; a relative path is refused', async () => {
    const missing = await unavailable(() =>
      detectSandboxSupport({ platform: 'linux', bwrapPath: '/nonexistent/bwrap' }),
    );
    expect(missing.data.cause).toBe('bwrap-missing');
    expect(missing.message).toContain('apt-get install bubblewrap');
    const relative = await unavailable(() => detectSandboxSupport({ platform: 'linux', bwrapPath: 'bwrap' }));
    expect(relative.message).toContain('absolute path');
  });

  it('macOS without /usr/bin/sandbox-exec (as on this machine) is unavailable', async () => {
    const error = await unavailable(() => detectSandboxSupport({ platform: 'darwin' }));
    expect(error.message).toContain('/usr/bin/sandbox-exec');
  });

  it('a failing preflight probe names the cause and the fix; a too old bwrap is refused', async () => {
    fixture = await makeFixture();
    const namespaces = await fakeBwrap(
      fixture.outside,
      '0.8.0',
      'bwrap: No permissions to creating new namespace',
    );
    const probe = await unavailable(() => detectSandboxSupport({ platform: 'linux', bwrapPath: namespaces }));
    expect(probe.data.cause).toBe('preflight-failed');
    expect(probe.message).toContain('user namespaces are refused');
    expect(probe.message).toContain('kernel.apparmor_restrict_unprivileged_userns');
    const loopback = await fakeBwrap(
      fixture.base,
      '0.8.0',
      'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted',
    );
    expect(
      (await unavailable(() => detectSandboxSupport({ platform: 'linux', bwrapPath: loopback }))).message,
    ).toContain('loopback');
    const old = await fakeBwrap(fixture.workspace, '0.3.1', '');
    expect(
      (await unavailable(() => detectSandboxSupport({ platform: 'linux', bwrapPath: old }))).data.cause,
    ).toBe('bwrap-too-old');
  });

  it('case S9: when the sandbox is unavailable the command never runs, not even unsandboxed', async () => {
    fixture = await makeFixture();
    const policy = await fixture.policy();
    const marker = path.join(fixture.workspace, 'ran.txt');
    const error = await unavailable(() =>
      runSandboxed(`touch ${marker}`, {
        policy,
        env: fixture.env,
        bwrapPath: path.join(fixture.outside, 'no-bwrap'),
      }),
    );
    expect(error.code).toBe('SANDBOX_UNAVAILABLE');
    expect(existsSync(marker)).toBe(false);
    const platform = await unavailable(() =>
      wrapCommand(['touch', marker], policy, { platform: 'freebsd', env: fixture.env }),
    );
    expect(platform.data.cause).toBe('unsupported-platform');
    expect(existsSync(marker)).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')(
    'a run bwrap cannot set up (a writable root vanished) is SANDBOX_UNAVAILABLE setup-failed, not an exit code',
    async () => {
      fixture = await makeFixture();
      const cache = path.join(fixture.outside, 'cache');
      await mkdir(cache);
      const policy = await fixture.policy({ writableRoots: [cache] });
      await rm(cache, { recursive: true });
      const error = await unavailable(() => runSandboxed('touch ran.txt', { policy, env: fixture.env }));
      expect(error.data.cause).toBe('setup-failed');
      expect(error.message).toContain(`Can't find source path ${cache}`);
      expect(existsSync(path.join(fixture.workspace, 'ran.txt'))).toBe(false);
      // A command that fails by itself is a result, not an error, also with the network on.
      const networkOn = await fixture.policy({ network: true });
      expect((await runSandboxed('exit 1', { policy: networkOn, env: fixture.env })).exitCode).toBe(1);
      const viaFile = await runSandboxed('exit 1', {
        policy: await fixture.policy(),
        env: fixture.env,
        seccompDelivery: 'file',
      });
      expect(viaFile.exitCode).toBe(1);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'sandboxCheck reports what works here, and reports (not throws) what does not',
    async () => {
      const report = await sandboxCheck();
      expect(report.available).toBe(true);
      expect(report.lines[0]).toMatch(/^sandbox: bubblewrap \d+\.\d+\.\d+ at \/usr\/bin\/bwrap$/);
      expect(report.lines[1]).toContain('preflight probe: ok');
      const missing = await sandboxCheck({ platform: 'linux', bwrapPath: '/nonexistent/bwrap' });
      expect(missing.available).toBe(false);
      expect(missing.problem?.cause).toBe('bwrap-missing');
      expect(missing.lines[0]).toContain('sandbox: unavailable (bwrap-missing)');
    },
  );
});
