import { execFile } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers.js';

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

/**
 * A workspace with `a.txt` and one replayed session (`sessionId`): turn t1 read a.txt and wrote
 * "two". `common` holds `--workspace` and `--home`.
 * @throws Error when the replay does not exit 0.
 */
export async function replayedWorkspace(
  sessionId: string,
): Promise<{ base: string; workspace: string; home: string; common: string[] }> {
  const base = await tempDir();
  const workspace = path.join(base, 'ws');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'a.txt'), 'one\n');
  const home = path.join(base, 'home');
  const recording = path.join(base, 'rec.jsonl');
  await writeFile(
    recording,
    [
      { turn: 't1', label: 'edit a', tool: 'read', input: { path: 'a.txt' } },
      { turn: 't1', tool: 'write', input: { path: 'a.txt', content: 'two\n' } },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  const common = ['--workspace', workspace, '--home', home];
  const replayed = await safeturn(['replay', recording, ...common, '--session', sessionId]);
  if (replayed.code !== 0) throw new Error(`replay failed: ${replayed.stderr}`);
  return { base, workspace, home, common };
}
