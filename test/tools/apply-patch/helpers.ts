import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { afterEach, beforeEach } from 'vitest';

/** A per-test workspace plus private HOME and SAFETURN_HOME. */
export interface Sandbox {
  root: string;
  home: string;
}

/** Registers hooks giving each test its own temp workspace, HOME and SAFETURN_HOME; returns a getter. */
export function useSandbox(): () => Sandbox {
  let current: Sandbox | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const saved = { HOME: process.env.HOME, SAFETURN_HOME: process.env.SAFETURN_HOME };
  beforeEach(async () => {
    const workspace = await dir({ unsafeCleanup: true });
    const home = await dir({ unsafeCleanup: true });
    cleanups.push(workspace.cleanup, home.cleanup);
    process.env.HOME = home.path;
    process.env.SAFETURN_HOME = path.join(home.path, '.safeturn');
    current = { root: await realpath(workspace.path), home: await realpath(home.path) };
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  return () => {
    if (current === undefined) throw new Error('sandbox used outside a test');
    return current;
  };
}

/** Writes files (text as UTF-8, or raw bytes) under root, creating parent directories. */
export async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

/** Every regular file under root (POSIX relative path -> UTF-8 content), sorted. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
  for (const file of files) result[file] = await readFile(path.join(root, file), 'utf8');
  return result;
}

/** Every directory under root (POSIX relative), sorted. */
export async function directories(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Joins lines into patch text. */
export function patchOf(...lines: string[]): string {
  return lines.join('\n');
}
