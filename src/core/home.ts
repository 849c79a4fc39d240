import os from 'node:os';
import path from 'node:path';
import { sha256 } from './hash.js';

/**
 * safeturn's data directory: `explicit`, else `$SAFETURN_HOME`, else `~/.safeturn`.
 *
 * @param explicit - a home passed by the host; wins over the environment.
 * @param env - environment to read `SAFETURN_HOME` and `HOME` from. @default process.env
 * @returns an absolute path.
 */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return path.resolve(explicit);
  if (env.SAFETURN_HOME) return path.resolve(env.SAFETURN_HOME);
  return path.join(env.HOME ?? os.homedir(), '.safeturn');
}

/** The project id of a workspace: the first 16 hex chars of sha256(realpath(workspace)). */
export function projectId(workspaceRealpath: string): string {
  return sha256(workspaceRealpath).slice(0, 16);
}

/** `<home>/projects/<id>` for a realpath'd workspace. */
export function projectDir(home: string, workspaceRealpath: string): string {
  return path.join(home, 'projects', projectId(workspaceRealpath));
}
