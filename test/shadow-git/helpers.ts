import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { dir } from 'tmp-promise';
import { shadowGitCommand } from '../../src/shadow-git/index.js';

/** Per-test temp dirs: a home (SAFETURN_HOME), a HOME for git, a workspace. */
export interface TestDirs {
  home: string;
  userHome: string;
  workspace: string;
  cleanup(): Promise<void>;
}

export async function makeDirs(): Promise<TestDirs> {
  const root = await dir({ unsafeCleanup: true });
  const { mkdir, realpath } = await import('node:fs/promises');
  const base = await realpath(root.path);
  const dirs = {
    home: path.join(base, 'safeturn-home'),
    userHome: path.join(base, 'home'),
    workspace: path.join(base, 'workspace'),
  };
  await Promise.all(Object.values(dirs).map((directory) => mkdir(directory, { recursive: true })));
  return { ...dirs, cleanup: () => root.cleanup() };
}

/** A clock that advances one second per call, from a fixed start. */
export function steppingClock(startMs = Date.UTC(2026, 0, 1)): () => number {
  let now = startMs;
  return () => {
    now += 1000;
    return now;
  };
}

/** Runs the real git CLI on the shadow repository; returns stdout (or raw bytes). */
export async function shadowGit(gitdir: string, userHome: string, args: string[]): Promise<string> {
  const command = shadowGitCommand({ gitdir, args, env: { ...process.env, HOME: userHome } });
  const result = await execa(command.file, command.args, {
    env: command.env,
    extendEnv: false,
    stripFinalNewline: false,
  });
  return result.stdout;
}

export async function shadowGitBytes(gitdir: string, userHome: string, args: string[]): Promise<Buffer> {
  const command = shadowGitCommand({ gitdir, args, env: { ...process.env, HOME: userHome } });
  const result = await execa(command.file, command.args, {
    env: command.env,
    extendEnv: false,
    encoding: 'buffer',
    stripFinalNewline: false,
  });
  return Buffer.from(result.stdout);
}

/** `git fsck --strict` on the shadow repository; returns its combined output, throws on failure. */
export async function fsck(gitdir: string, userHome: string): Promise<string> {
  const command = shadowGitCommand({
    gitdir,
    args: ['fsck', '--strict', '--full', '--no-dangling'],
    env: { ...process.env, HOME: userHome },
  });
  const result = await execa(command.file, command.args, { env: command.env, extendEnv: false, all: true });
  return result.all;
}

/** Hash of every file below a directory: names, modes, bytes and link targets. */
export async function hashTree(root: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = (await readdir(root, { recursive: true })).sort();
  for (const entry of entries) {
    const absolute = path.join(root, entry);
    const stats = await lstat(absolute);
    hash.update(`${entry}\0${stats.mode}\0`);
    if (stats.isSymbolicLink()) hash.update(await readlink(absolute));
    else if (stats.isFile()) hash.update(await readFile(absolute));
  }
  return hash.digest('hex');
}

/** Every path of a workspace (files and symlinks), POSIX-relative, skipping `.git`. */
export async function walkWorkspace(root: string): Promise<string[]> {
  const paths: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const relative = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (relative === '.git' || relative.startsWith('.git/')) continue;
    if (entry.isFile() || entry.isSymbolicLink()) paths.push(relative);
  }
  return paths.sort();
}

/** `git ls-tree -r` of a commit as "mode path" lines (blob ids omitted) plus a map path -> blob id. */
export async function lsTree(
  gitdir: string,
  userHome: string,
  commit: string,
): Promise<Map<string, { mode: string; oid: string }>> {
  const output = await shadowGit(gitdir, userHome, ['ls-tree', '-r', '-z', commit]);
  const entries = new Map<string, { mode: string; oid: string }>();
  for (const record of output.split('\0')) {
    if (record === '') continue;
    const match = /^(\d+) blob ([0-9a-f]{40})\t([\s\S]*)$/.exec(record);
    if (match) entries.set(match[3]!, { mode: match[1]!, oid: match[2]! });
  }
  return entries;
}

/** The raw diff of a commit against its first parent: "status path" lines with modes, via real git. */
export async function changesOf(gitdir: string, userHome: string, commit: string): Promise<string[]> {
  const output = await shadowGit(gitdir, userHome, [
    'diff-tree',
    '-r',
    '-z',
    '--no-commit-id',
    '--root',
    commit,
  ]);
  const parts = output.split('\0').filter((part) => part !== '');
  const changes: string[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const [oldMode, newMode, , , status] = parts[index]!.slice(1).split(' ');
    changes.push(`${status} ${oldMode}->${newMode} ${parts[index + 1]}`);
  }
  return changes.sort();
}

/** UTF-8 bytes of a string, as the plain Uint8Array that `show` returns. */
export function bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text));
}
