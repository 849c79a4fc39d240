import { execFileSync } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { onTestFinished } from 'vitest';
import { createSession as openSession } from '../src/loop/create-session.js';
import type { Session } from '../src/loop/session.js';
import type { CreateSessionOptions } from '../src/loop/session-options.js';
import { wrapTools } from '../src/loop/wrap-tools.js';
import { createReferenceTools } from '../src/tools/reference-tools.js';

const openSessions = new Set<Session>();

/**
 * `createSession`, tracked so that `closeTrackedSessions()` (run after each test by test/setup.ts)
 * waits for each session's background work (shadow commits) before the temp dirs go.
 */
export async function createSession(options: CreateSessionOptions): Promise<Session> {
  const session = await openSession(options);
  openSessions.add(session);
  return session;
}

/** Closes every session a test opened; errors of already-deleted dirs are ignored. */
export async function closeTrackedSessions(): Promise<void> {
  const sessions = [...openSessions];
  openSessions.clear();
  await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
}

/** A temp directory removed after the test. */
export async function tempDir(): Promise<string> {
  const created = await dir({ unsafeCleanup: true });
  onTestFinished(() => created.cleanup());
  return created.path;
}

/** A workspace, a home and a session with the reference tools wrapped. */
export async function setup(options: Partial<CreateSessionOptions> = {}) {
  const workspace = options.workspace ?? (await tempDir());
  const home = options.home ?? (await tempDir());
  const session = await createSession({ ...options, workspace, home });
  const tools = wrapTools({ session, tools: createReferenceTools() });
  const context = () => ({ root: session.root });
  return { workspace: session.workspace, home, session, tools, context };
}

/** Writes files (creating parents). */
export async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

export async function read(root: string, name: string): Promise<string> {
  return readFile(path.join(root, name), 'utf8');
}

export async function exists(root: string, name: string): Promise<boolean> {
  return stat(path.join(root, name)).then(
    () => true,
    () => false,
  );
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

/** Runs a turn with the given body, then ends it. */
export async function turn(session: Session, label: string, body: () => Promise<void>): Promise<string> {
  const { id } = await session.beginTurn({ label });
  await body();
  await session.endTurn();
  return id;
}

/** Snapshot of every file under root: relative path -> sha-ish content and mode, for byte-exact comparisons. */
export async function snapshot(root: string): Promise<Map<string, string>> {
  const { readdir, lstat, readlink } = await import('node:fs/promises');
  const result = new Map<string, string>();
  const walk = async (directory: string) => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      const relative = path.relative(root, full);
      if (entry.isDirectory()) {
        result.set(`${relative}/`, 'dir');
        await walk(full);
      } else if (entry.isSymbolicLink()) {
        result.set(relative, `link:${await readlink(full)}`);
      } else {
        const stats = await lstat(full);
        result.set(
          relative,
          `${(stats.mode & 0o777).toString(8)}:${(await readFile(full)).toString('base64')}`,
        );
      }
    }
  };
  await walk(root);
  return result;
}
