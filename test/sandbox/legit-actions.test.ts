import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/sandbox/resolve-policy.js';
import { runSandboxed } from '../../src/sandbox/run-sandboxed.js';
import { detectSandboxSupport, type SandboxSupport } from '../../src/sandbox/sandbox-support.js';
import { wrapCommand } from '../../src/sandbox/wrap-command.js';
import { type Fixture, git, makeFixture } from './fixture.js';

const linux = process.platform === 'linux';
let support: SandboxSupport;
let fixture: Fixture;

beforeAll(async () => {
  if (linux) support = await detectSandboxSupport();
});
afterEach(async () => {
  await fixture?.cleanup();
});

function sandboxTemporaryDirectories(): string[] {
  return execFileSync('ls', ['/tmp'], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => name.startsWith('safeturn-sandbox-'));
}

describe.skipIf(!linux)('legit actions work inside the sandbox (bwrap; Linux only)', () => {
  it('case S8: git init + commit of a new repo work, and a hook written there is removed afterwards', async () => {
    fixture = await makeFixture({ support });
    const result = await fixture.run(
      'mkdir fresh && cd fresh && git init -q -b main && echo one > a.txt && git add a.txt && git commit -q -m first && printf "#!/bin/sh\\nexit 0\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git log --format=%s',
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('first\n');
    const fresh = path.join(fixture.workspace, 'fresh');
    expect(await git(fresh, ['log', '--format=%s'])).toBe('first');
    expect(existsSync(path.join(fresh, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(result.cleanup.removedHooks).toEqual([path.join(fresh, '.git', 'hooks', 'pre-commit')]);
    // git's own *.sample files are not hooks and stay.
    expect((await readdir(path.join(fresh, '.git', 'hooks'))).every((name) => name.endsWith('.sample'))).toBe(
      true,
    );
  });

  it("case S8: in the existing repo rm -rf .git fails by default and git commit works with protectGit: 'hooks'", async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    await writeFile(path.join(fixture.workspace, 'a.txt'), 'one\n');
    await git(fixture.workspace, ['add', 'a.txt']);
    await git(fixture.workspace, ['commit', '-q', '-m', 'first']);
    const denied = await fixture.run(
      'rm -rf .git; git status --short; git commit -q --allow-empty -m blocked',
    );
    expect(denied.exitCode).not.toBe(0);
    expect(await git(fixture.workspace, ['log', '--format=%s'])).toBe('first');
    expect(existsSync(path.join(fixture.workspace, '.git', 'HEAD'))).toBe(true);

    const allowed = await fixture.run(
      'echo two >> a.txt && git commit -q -am second && git log --format=%s; echo x > .git/hooks/pre-push; git config core.hooksPath /tmp; exit 0',
      { protectGit: 'hooks' },
    );
    expect(allowed.stdout).toBe('second\nfirst\n');
    expect(await git(fixture.workspace, ['log', '--format=%s'])).toBe('second\nfirst');
    expect(existsSync(path.join(fixture.workspace, '.git', 'hooks', 'pre-push'))).toBe(false);
    expect(await readFile(path.join(fixture.workspace, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it("a git worktree as the workspace, its main .git as a writable root: commits work under 'hooks', hooks stay closed", async () => {
    fixture = await makeFixture({ support });
    const main = path.join(fixture.outside, 'main');
    await mkdir(main);
    await git(main, ['init', '-q']);
    await writeFile(path.join(main, 'a.txt'), 'one\n');
    await git(main, ['add', 'a.txt']);
    await git(main, ['commit', '-q', '-m', 'first']);
    await git(main, ['worktree', 'add', '-q', fixture.workspace, '-b', 'agent']);
    const policy = await resolvePolicy(
      { protectGit: 'hooks', writableRoots: [path.join(main, '.git')] },
      { workspace: fixture.workspace, env: fixture.env },
    );
    const result = await runSandboxed(
      'echo two >> a.txt && git commit -q -am second && echo x > "$(git rev-parse --git-common-dir)/hooks/pre-commit"; git log --format=%s',
      {
        policy,
        env: fixture.env,
        support,
      },
    );
    expect(result.stdout).toBe('second\nfirst\n');
    expect(await git(main, ['log', 'agent', '--format=%s'])).toBe('second\nfirst');
    expect(existsSync(path.join(main, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('node runs, and npm works with a writable cache', async () => {
    fixture = await makeFixture({ support });
    const cache = path.join(fixture.base, 'npm-cache');
    await mkdir(cache);
    await mkdir(path.join(fixture.workspace, 'pkg'));
    await writeFile(
      path.join(fixture.workspace, 'pkg', 'package.json'),
      JSON.stringify({ name: 'tiny-pkg', version: '1.0.0' }),
    );
    const result = await fixture.run(
      `node -e "console.log(6 * 7)" && cd pkg && npm pack --silent --cache "${cache}" && npm cache add ./tiny-pkg-1.0.0.tgz --cache "${cache}" --offline && echo done`,
      { writableRoots: [cache] },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('42\ntiny-pkg-1.0.0.tgz\ndone\n');
    expect(await readdir(cache)).toContain('_cacache');
  });

  it('case S4: TMPDIR exists and is writable inside; mktemp -d works on the first call; the temp dir is gone afterwards', async () => {
    fixture = await makeFixture({ support });
    const before = sandboxTemporaryDirectories();
    const result = await fixture.run(
      'echo "$TMPDIR"; d=$(mktemp -d) && echo data > "$d/f" && cat "$d/f"; mktemp | grep -c "^/tmp/"; echo x > /tmp/direct && cat /tmp/direct',
    );
    expect(result.stdout).toBe('/tmp\ndata\n1\nx\n');
    expect(result.cleanup.temporaryDirectoryRemoved).toBe(true);
    expect(sandboxTemporaryDirectories()).toEqual(before);
    expect(existsSync('/tmp/direct')).toBe(false);
  });

  it('case S7: a workspace reached through a symlinked path, with spaces in it, works', async () => {
    fixture = await makeFixture({ support, workspaceName: 'my work space' });
    const link = path.join(fixture.base, 'link to ws');
    await symlink(fixture.workspace, link);
    const policy = await resolvePolicy({}, { workspace: link, env: fixture.env });
    expect(policy.workspace).toBe(fixture.workspace);
    const result = await runSandboxed('pwd; echo hello > "file with spaces.txt"; ls', {
      policy,
      env: fixture.env,
      support,
    });
    expect(result.stdout).toBe(`${fixture.workspace}\nfile with spaces.txt\n`);
    expect(await readFile(path.join(link, 'file with spaces.txt'), 'utf8')).toBe('hello\n');
  });

  it('a workspace under the host /tmp works (the private /tmp re-exposes it and HOME)', async () => {
    fixture = await makeFixture({ support, parent: '/tmp' });
    await writeFile(path.join(fixture.home, '.gitconfig'), '[user]\n\tname = FromHome\n');
    await mkdir(path.join(fixture.home, '.ssh'));
    await writeFile(path.join(fixture.home, '.ssh', 'id_rsa'), 'FAKE-KEY');
    await writeFile(path.join(fixture.home, '.netrc'), 'FAKE-NETRC');
    const result = await fixture.run(
      'echo ok > made.txt && git config --global user.name && ls /tmp | wc -l; cat ~/.ssh/id_rsa ~/.netrc; exit 0',
    );
    expect(result.stdout).toBe('FromHome\n1\n');
    expect(await readFile(path.join(fixture.workspace, 'made.txt'), 'utf8')).toBe('ok\n');
  });

  it('stdin reaches the command', async () => {
    fixture = await makeFixture({ support });
    const result = await fixture.run('tr a-z A-Z', {}, { stdin: 'hello sandbox\n' });
    expect(result.stdout).toBe('HELLO SANDBOX\n');
  });

  it('exit codes and signals are passed through', async () => {
    fixture = await makeFixture({ support });
    expect((await fixture.run('exit 42')).exitCode).toBe(42);
    const killed = await fixture.run('kill -TERM $$');
    expect(killed.exitCode).toBe(128 + 15);
    expect((await fixture.run('kill -KILL $$')).exitCode).toBe(128 + 9);
  });

  it('a timeout or an abort kills the whole sandbox, leaving no process behind', async () => {
    fixture = await makeFixture({ support });
    const marker = `sleep 97.${process.pid}`;
    const timedOut = await fixture.run(`${marker} & ${marker}; echo never`, {}, { timeoutMs: 300 });
    expect(timedOut.timedOut).toBe(true);
    expect(timedOut.signal).toBe('SIGTERM');
    expect(timedOut.stdout).toBe('');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const aborted = await fixture.run(`${marker}`, {}, { abortSignal: controller.signal });
    expect(aborted.aborted).toBe(true);
    const survivors = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith(marker));
    expect(survivors).toEqual([]);
  });

  it('a command under a PTY works', async () => {
    fixture = await makeFixture({ support });
    const result = await fixture.run('script -qec "tty; test -t 0 && echo interactive" /dev/null');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\/dev\/pts\/\d+\r\ninteractive\r\n$/);
  });

  it.skipIf(!existsSync('/usr/bin/python3'))(
    'the sandbox itself under a host PTY (seccomp delivered from a file, no extra fd): tty, exit code, filter active',
    async () => {
      fixture = await makeFixture({ support });
      const policy = await fixture.policy();
      const socketPath = path.join(fixture.workspace, 's.sock');
      const server = createServer((socket) => socket.end('x'));
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      await writeFile(
        path.join(fixture.workspace, 'probe.cjs'),
        `require('node:net').connect(${JSON.stringify(socketPath)}).on('error', (e) => console.log('unix=' + e.code)).on('connect', () => console.log('unix=connected'));`,
      );
      const wrapped = await wrapCommand(
        ['bash', '-c', 'tty; test -t 0 && echo interactive; node probe.cjs; exit 3'],
        policy,
        {
          support,
          env: fixture.env,
          seccompDelivery: 'file',
        },
      );
      try {
        expect(wrapped.file).toBe('/bin/sh');
        expect(wrapped.extraStdio).toEqual([]);
        // python's pty.spawn runs argv (no shell string) on a fresh PTY and returns the wait status.
        const spawner = 'import pty, sys; status = pty.spawn(sys.argv[1:]); sys.exit(status >> 8)';
        const result = await execa('/usr/bin/python3', ['-c', spawner, wrapped.file, ...wrapped.args], {
          env: wrapped.env,
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        });
        // bwrap binds the host terminal as /dev/console inside its own /dev.
        expect(result.stdout).toMatch(/^\/dev\/(console|pts\/\d+)\r\ninteractive\r\nunix=EPERM\r?$/);
        expect(result.exitCode).toBe(3);
      } finally {
        server.close();
        await wrapped.cleanup();
      }
    },
  );

  it('read-only mode: the workspace cannot be written but is readable; the private temp dir is', async () => {
    fixture = await makeFixture({ support });
    await writeFile(path.join(fixture.workspace, 'a.txt'), 'content');
    const result = await fixture.run('cat a.txt; echo x > b.txt; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"', {
      mode: 'read-only',
    });
    expect(result.stdout).toBe('contentt\n');
    expect(result.stderr).toContain('Read-only file system');
    expect(existsSync(path.join(fixture.workspace, 'b.txt'))).toBe(false);
  });

  it('network: true reaches a loopback server outside', async () => {
    fixture = await makeFixture({ support });
    const { createServer } = await import('node:net');
    const server = createServer((socket) => socket.end('HELLO\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await fixture.run(`exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`, { network: true });
      expect(result.stdout).toBe('HELLO\n');
    } finally {
      server.close();
    }
  });
});
