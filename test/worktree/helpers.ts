import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { dir } from 'tmp-promise';
import type { WorktreeHost } from '../../src/worktree/index.js';

/** A temp git repository with its own HOME and SAFETURN_HOME. */
export interface Fixture {
  /** realpath'd repository root (= the workspace). */
  workspace: string;
  home: string;
  root: string;
  git(args: string[], cwd?: string): Promise<string>;
  write(relative: string, content: string | Buffer, mode?: number): Promise<void>;
  read(relative: string, base?: string): Promise<Buffer>;
  cleanup(): Promise<void>;
}

const identity = {
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Makes a temp repository (not committed yet unless `files` are given, then one commit). */
export async function makeFixture(
  files: Record<string, string | Buffer> = { 'README.md': 'hello\n' },
): Promise<Fixture> {
  const temp = await dir({ unsafeCleanup: true });
  const root = await realpath(temp.path);
  const workspace = path.join(root, 'repo');
  const home = path.join(root, 'safeturn-home');
  const userHome = path.join(root, 'user-home');
  await mkdir(workspace);
  await mkdir(userHome);
  process.env.HOME = userHome;
  process.env.SAFETURN_HOME = home;
  Object.assign(process.env, identity);
  const git = async (args: string[], cwd = workspace) =>
    (await execa('git', args, { cwd, stripFinalNewline: false })).stdout;
  await git(['init', '-q', '-b', 'main']);
  const write = async (relative: string, content: string | Buffer, mode?: number) => {
    const file = path.join(workspace, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    if (mode !== undefined) await chmod(file, mode);
  };
  for (const [relative, content] of Object.entries(files)) await write(relative, content);
  if (Object.keys(files).length > 0) {
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'initial']);
  }
  return {
    workspace,
    home,
    root,
    git,
    write,
    read: (relative, base = workspace) => readFile(path.join(base, relative)),
    cleanup: () => temp.cleanup(),
  };
}

/** One call of the checkpoint seam, with the bytes each path held at that moment (`null` = absent). */
export interface SeamCall {
  phase: 'before' | 'after';
  root: string;
  paths: string[];
  contents: Array<Buffer | null>;
}

/** A host that records seam calls (copying pre-images) and the active root. */
export interface RecordingHost extends WorktreeHost {
  calls: SeamCall[];
  activeRoots: Array<string | undefined>;
  /** Seam calls and root changes in order: `before`, `after`, `root <path | workspace>`. */
  events: string[];
  /** Writes every pre-image of the `before` calls back (oldest wins): a stand-in for a checkpoint rewind. */
  rewind(): Promise<void>;
}

async function snapshot(root: string, paths: string[]): Promise<Array<Buffer | null>> {
  return Promise.all(paths.map((relative) => readFile(path.join(root, relative)).catch(() => null)));
}

/** Makes a recording host for a fixture. */
export function recordingHost(fixture: Fixture, sessionId = 'session-1'): RecordingHost {
  const calls: SeamCall[] = [];
  const activeRoots: Array<string | undefined> = [];
  const events: string[] = [];
  return {
    workspace: fixture.workspace,
    home: fixture.home,
    sessionId,
    calls,
    activeRoots,
    events,
    async beforeWrite(root, paths) {
      events.push('before');
      calls.push({ phase: 'before', root, paths, contents: await snapshot(root, paths) });
    },
    async afterWrite(root, paths) {
      events.push('after');
      calls.push({ phase: 'after', root, paths, contents: await snapshot(root, paths) });
    },
    setActiveRoot(root) {
      events.push(`root ${root ?? 'workspace'}`);
      activeRoots.push(root);
    },
    async rewind() {
      for (const call of calls.filter((entry) => entry.phase === 'before').reverse()) {
        for (const [index, relative] of call.paths.entries()) {
          const file = path.join(call.root, relative);
          const content = call.contents[index] ?? null;
          if (content === null) await rm(file, { force: true });
          else {
            await mkdir(path.dirname(file), { recursive: true });
            await writeFile(file, content);
          }
        }
      }
    },
  };
}

/** Every file under `directory` (skipping `.git`) with its bytes and mode, keyed by POSIX relative path. */
export async function treeState(directory: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(directory, absolute).split(path.sep).join('/');
    if (relative === '.git' || relative.startsWith('.git/')) continue;
    const info = await lstat(absolute);
    if (info.isDirectory()) continue;
    state[relative] = info.isSymbolicLink()
      ? `link:${await readlink(absolute)}`
      : `${(info.mode & 0o777).toString(8)}:${(await readFile(absolute)).toString('base64')}`;
  }
  return state;
}

/** mtimeMs of a file. */
export async function mtimeOf(file: string): Promise<number> {
  return (await stat(file)).mtimeMs;
}
