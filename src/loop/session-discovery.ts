import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { projectDir as projectDirOf, resolveHome } from '../core/home.js';

/** A session found on disk. */
export interface SessionInfo {
  id: string;
  /** Last time its journal was written (ISO 8601). */
  updatedAt: string;
}

/** Options of {@link listSessions}. */
export interface ListSessionsOptions {
  workspace: string;
  /** @default $SAFETURN_HOME, else ~/.safeturn */
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Lists the sessions recorded for a workspace, most recently written first.
 * @returns an empty list when the workspace has no sessions (or does not exist).
 */
export async function listSessions(options: ListSessionsOptions): Promise<SessionInfo[]> {
  const workspace = await realpath(path.resolve(options.workspace)).catch(() =>
    path.resolve(options.workspace),
  );
  const sessionsDir = path.join(projectDirOf(resolveHome(options.home, options.env), workspace), 'sessions');
  const names = await readdir(sessionsDir).catch(() => [] as string[]);
  const found: { id: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const stats = await stat(path.join(sessionsDir, name, 'journal.jsonl')).catch(() => undefined);
    if (stats) found.push({ id: name, mtimeMs: stats.mtimeMs });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.id.localeCompare(b.id));
  return found.map((entry) => ({ id: entry.id, updatedAt: new Date(entry.mtimeMs).toISOString() }));
}
