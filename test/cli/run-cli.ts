import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = path.resolve('bin/safeturn.js');

/** Runs the built `safeturn` bin; never throws on a non-zero exit. */
export async function safeturn(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Parses JSON Lines output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every session directory under a safeturn home (all projects), sorted. */
export async function sessionDirs(home: string): Promise<string[]> {
  const found: string[] = [];
  for (const project of await readdir(path.join(home, 'projects')).catch(() => [] as string[])) {
    for (const name of await readdir(path.join(home, 'projects', project, 'sessions')).catch(
      () => [] as string[],
    ))
      found.push(`${project}/${name}`);
  }
  return found.sort();
}
