import { describe, expect, it } from 'vitest';
import { buildBwrapArguments } from '../../src/sandbox/bwrap-arguments.js';
import type { SandboxPolicy } from '../../src/sandbox/policy-schema.js';
import { scrubEnvironment } from '../../src/sandbox/scrub-environment.js';
import { buildUnixSocketFilter } from '../../src/sandbox/seccomp-filter.js';

const policy: SandboxPolicy = {
  mode: 'workspace-write',
  workspace: '/work/project',
  homeDirectory: '/work/project/home',
  safeturnHome: '/root/.safeturn',
  writableRoots: ['/var/cache/npm'],
  denyRead: ['/root/.ssh', '/work/project/home/.aws', '/root/.netrc'],
  network: false,
  protectGit: true,
  allowEnv: [],
  readOnlyPaths: [],
};

describe('bwrap argv', () => {
  it('is built in the documented mount order', () => {
    const args = buildBwrapArguments({
      policy,
      plan: {
        writable: ['/work/project', '/var/cache/npm'],
        protectedEntries: [
          { path: '/work/project/.git', kind: 'directory', exists: true, reason: 'git' },
          {
            path: '/work/project/home/.bashrc',
            kind: 'file',
            exists: false,
            firstMissing: '/work/project/home/.bashrc',
            reason: 'home-rc',
          },
          { path: '/work/project/home/.safeturn', kind: 'directory', exists: false, reason: 'safeturn-home' },
        ],
        denyEntries: [
          { path: '/root/.ssh', kind: 'directory' },
          { path: '/work/project/home/.aws', kind: 'directory' },
          { path: '/root/.netrc', kind: 'file' },
        ],
        removeIfCreated: [],
        hookFilesBefore: [],
        git: { gitFiles: [], gitDirectories: ['/work/project/.git'], hooksPaths: [] },
      },
      layout: {
        root: '/tmp/s',
        tmp: '/tmp/s/tmp',
        emptyFile: '/tmp/s/empty-file',
        emptyDirectory: '/tmp/s/empty-directory',
      },
      features: { disableUserns: true, argv0: false },
      cwd: '/work/project/src',
      unsetEnv: ['GITHUB_TOKEN'],
      seccompFd: 3,
      argv: ['bash', '-lc', 'echo hi'],
    });
    expect(args).toEqual([
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--unshare-pid',
      '--unshare-ipc',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--unshare-user',
      '--disable-userns',
      '--unshare-net',
      '--proc',
      '/proc',
      '--tmpfs',
      '/root/.ssh',
      '--remount-ro',
      '/root/.ssh',
      '--ro-bind',
      '/dev/null',
      '/root/.netrc',
      '--bind',
      '/tmp/s/tmp',
      '/tmp',
      '--bind',
      '/work/project',
      '/work/project',
      '--bind',
      '/var/cache/npm',
      '/var/cache/npm',
      '--ro-bind',
      '/work/project/.git',
      '/work/project/.git',
      '--ro-bind',
      '/tmp/s/empty-file',
      '/work/project/home/.bashrc',
      '--ro-bind',
      '/tmp/s/empty-directory',
      '/work/project/home/.safeturn',
      // A deny-read path inside a writable root is masked after the bind that would uncover it.
      '--tmpfs',
      '/work/project/home/.aws',
      '--remount-ro',
      '/work/project/home/.aws',
      '--unsetenv',
      'GITHUB_TOKEN',
      '--setenv',
      'TMPDIR',
      '/tmp',
      '--chdir',
      '/work/project/src',
      '--seccomp',
      '3',
      '--',
      'bash',
      '-lc',
      'echo hi',
    ]);
  });
});

describe('seccomp program', () => {
  it('is whole 8-byte sock_filter instructions, checks the architecture first, and ends allow / EPERM', () => {
    const bytes = buildUnixSocketFilter('x64');
    expect(bytes.length % 8).toBe(0);
    const view = new DataView(bytes.buffer);
    const at = (index: number) => ({
      code: view.getUint16(index * 8, true),
      jt: view.getUint8(index * 8 + 2),
      jf: view.getUint8(index * 8 + 3),
      k: view.getUint32(index * 8 + 4, true),
    });
    const count = bytes.length / 8;
    expect(at(0)).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 });
    expect(at(1)).toMatchObject({ code: 0x15, k: 0xc000003e });
    expect(at(count - 2)).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x7fff0000 });
    expect(at(count - 1)).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x00050001 });
    expect(Buffer.from(bytes).toString('hex')).toMatchInlineSnapshot(
      `"2000000004000000150002003e0000c0150005000300004006000000000000802000000000000000350009000000004015000800a901000015000406290000002000000000000000150005006600000015000400a9010000150000026701000020000000100000001500010001000000060000000000ff7f0600000001000500"`,
    );
    expect(buildUnixSocketFilter('arm64').length % 8).toBe(0);
    expect(() => buildUnixSocketFilter('mips')).toThrow('no syscall table');
  });
});

describe('environment scrubbing', () => {
  it('drops secret-looking names and credential URLs, keeps the rest and allowed names', () => {
    const result = scrubEnvironment(
      {
        PATH: '/bin',
        GITHUB_TOKEN: 'a',
        AWS_SECRET_ACCESS_KEY: 'b',
        AWS_ACCESS_KEY_ID: 'c',
        PGPASSWORD: 'd',
        SSH_AUTH_SOCK: '/run/agent',
        GIT_AUTHOR_NAME: 'Dev',
        OPENAI_API_KEY: 'e',
        DATABASE_URL: 'postgres://u:p@h/db',
        HTTP_URL: 'https://example.com/x',
        NPM_CONFIG_CACHE: '/c',
        SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
        CLIENT_CERT: '/home/me/client.pem',
        EMPTY: undefined,
      },
      ['OPENAI_API_KEY'],
    );
    expect(result.dropped).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'CLIENT_CERT',
      'DATABASE_URL',
      'GITHUB_TOKEN',
      'PGPASSWORD',
      'SSH_AUTH_SOCK',
    ]);
    expect(result.env).toEqual({
      PATH: '/bin',
      GIT_AUTHOR_NAME: 'Dev',
      OPENAI_API_KEY: 'e',
      HTTP_URL: 'https://example.com/x',
      NPM_CONFIG_CACHE: '/c',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
    });
  });
});
