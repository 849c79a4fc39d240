import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import git from 'isomorphic-git';
import { writeFileAtomic } from '../core/atomic-write.js';
import { projectDir } from '../core/home.js';
import type { GitFileSystem } from './git-fs.js';

/** Where the pieces of one shadow repository live. */
export interface RepositoryLayout {
  /** `<home>/projects/<id>/shadow.git`, a bare git directory. */
  gitdir: string;
  /** `<gitdir>/safeturn`: safeturn's own state beside the git data (ignored by git). */
  stateDir: string;
  /** Cross-process lock that serialises ref updates and repair. */
  lockFile: string;
  /** Pending-commit records, one JSON file per queued commit. */
  pendingDir: string;
  /** Append-only JSON Lines of skipped turns (rule A). */
  skippedFile: string;
}

/** Computes the layout for a realpath'd workspace under `home`. */
export function repositoryLayout(home: string, workspace: string): RepositoryLayout {
  const gitdir = path.join(projectDir(home, workspace), 'shadow.git');
  const stateDir = path.join(gitdir, 'safeturn');
  return {
    gitdir,
    stateDir,
    lockFile: path.join(stateDir, 'commit.lock'),
    pendingDir: path.join(stateDir, 'pending'),
    skippedFile: path.join(stateDir, 'skipped.jsonl'),
  };
}

/** Fixed identity of every shadow commit: no user name, no e-mail address leaks into it. */
export const shadowAuthor = { name: 'safeturn', email: 'safeturn@localhost' } as const;

// A private config: nothing is read from the user's global config by isomorphic-git, and real git run
// on this directory (with the environment of gitCommandEnvironment) signs nothing and never auto-gcs.
const configText = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
\tsymlinks = true
\tignorecase = false
\tlogallrefupdates = true
[user]
\tname = ${shadowAuthor.name}
\temail = ${shadowAuthor.email}
[commit]
\tgpgsign = false
[tag]
\tgpgsign = false
[gc]
\tauto = 0
`;

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the directories of the layout (idempotent). Call before taking the lock.
 */
export async function ensureStateDirectories(layout: RepositoryLayout): Promise<void> {
  await mkdir(layout.pendingDir, { recursive: true });
}

/**
 * Initialises the bare repository when it has no config yet (call under the lock), and records
 * the workspace it belongs to in `<stateDir>/workspace`.
 */
export async function initialiseRepository(
  layout: RepositoryLayout,
  workspace: string,
  fileSystem: GitFileSystem,
): Promise<void> {
  const configFile = path.join(layout.gitdir, 'config');
  let current: string | undefined;
  try {
    current = await readFile(configFile, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== configText) {
    if (current === undefined)
      await git.init({ fs: fileSystem, gitdir: layout.gitdir, bare: true, defaultBranch: 'main' });
    await writeFileAtomic(configFile, configText);
  }
  const workspaceFile = path.join(layout.stateDir, 'workspace');
  if (!(await exists(workspaceFile))) await writeFileAtomic(workspaceFile, `${workspace}\n`);
}
