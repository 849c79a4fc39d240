import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-write.js';
import { sha256 } from '../core/hash.js';
import { projectId } from '../core/home.js';
import { WorktreeError } from './worktree-error.js';

/** `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`, not ending in `.lock` or `.`, no `..`: safe as a folder and a ref segment. */
export const worktreeNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'letters, digits, ".", "_" or "-", starting with a letter or digit, at most 64',
  )
  .refine(
    (name) => !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.'),
    'no "..", not ending in ".lock" or "."',
  )
  .describe('Worktree name: a folder name and the last part of its branch');

const registryEntrySchema = z.object({
  version: z.literal(1),
  name: worktreeNameSchema,
  branch: z.string(),
  sessionId: z.string(),
  state: z.enum(['creating', 'active', 'merged']),
  owner: z.object({ pid: z.number().int(), host: z.string() }),
  workspace: z.string(),
  repoRoot: z.string(),
  /** Workspace location inside the repository, POSIX, '' or ending in '/'. */
  prefix: z.string(),
  path: z.string(),
  baseCommit: z.string(),
  /** The commit on the branch holding the carried dirty tree (= baseCommit when nothing was carried). */
  creationCommit: z.string().optional(),
  createdAt: z.string(),
  carried: z.array(z.string()),
  /** Carried gitignored files (kept out of git): repo-relative path -> base content hash and executable bit. */
  included: z.record(z.string(), z.object({ sha256: z.string(), executable: z.boolean() })),
  /** The include patterns used at creation (config and option), applied again at merge to find new included files. */
  includePatterns: z.array(z.string()).default([]),
  mergedAt: z.string().optional(),
});

/** One worktree as recorded in the registry (`<home>/worktrees/<projectId>/_registry/<name>.json`). */
export type RegistryEntry = z.infer<typeof registryEntrySchema>;

/** Where a workspace's worktrees and their registry live. */
export interface ProjectWorktreeDirs {
  /** `<home>/worktrees/<projectId>`: one folder per worktree, plus `_registry`. */
  root: string;
  /** `<root>/_registry`: `<name>.json`, `<name>.base/<sha256>` for carried ignored files, and the lock file. */
  registry: string;
}

/** The folders of a workspace's worktrees (created when missing). */
export async function projectWorktreeDirs(home: string, workspace: string): Promise<ProjectWorktreeDirs> {
  const root = path.join(home, 'worktrees', projectId(workspace));
  const registry = path.join(root, '_registry');
  await mkdir(registry, { recursive: true });
  return { root, registry };
}

/**
 * Reads one entry.
 *
 * @returns the entry, or `undefined` when none is recorded.
 * @throws WorktreeError `WORKTREE` when the file is not a valid entry.
 */
export async function readEntry(dirs: ProjectWorktreeDirs, name: string): Promise<RegistryEntry | undefined> {
  const file = path.join(dirs.registry, `${name}.json`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WorktreeError('WORKTREE', `Worktree registry file ${file} is not valid JSON.`, {
      data: { file },
      cause: error,
    });
  }
  const parsed = registryEntrySchema.safeParse(json);
  if (!parsed.success) {
    throw new WorktreeError(
      'WORKTREE',
      `Worktree registry file ${file} is invalid: ${parsed.error.message}`,
      {
        data: { file },
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

/** Writes (atomically) one entry. */
export async function writeEntry(dirs: ProjectWorktreeDirs, entry: RegistryEntry): Promise<void> {
  await writeFileAtomic(
    path.join(dirs.registry, `${entry.name}.json`),
    `${JSON.stringify(entry, null, 2)}\n`,
    {
      fsync: true,
    },
  );
}

/** Removes an entry and its stored base contents. */
export async function removeEntry(dirs: ProjectWorktreeDirs, name: string): Promise<void> {
  await rm(path.join(dirs.registry, `${name}.base`), { recursive: true, force: true });
  await rm(path.join(dirs.registry, `${name}.json`), { force: true });
}

/** Every readable entry, sorted by creation time; unreadable files are returned by name in `invalid`. */
export async function readAllEntries(
  dirs: ProjectWorktreeDirs,
): Promise<{ entries: RegistryEntry[]; invalid: string[] }> {
  const entries: RegistryEntry[] = [];
  const invalid: string[] = [];
  for (const file of await readdir(dirs.registry)) {
    if (!file.endsWith('.json')) continue;
    const name = file.slice(0, -'.json'.length);
    try {
      const entry = await readEntry(dirs, name);
      if (entry) entries.push(entry);
    } catch {
      invalid.push(name);
    }
  }
  entries.sort(
    (left, right) => left.createdAt.localeCompare(right.createdAt) || left.name.localeCompare(right.name),
  );
  return { entries, invalid };
}

/**
 * Stores the base content of a carried ignored file.
 *
 * @returns its sha256.
 */
export async function storeBaseContent(
  dirs: ProjectWorktreeDirs,
  name: string,
  bytes: Buffer,
): Promise<string> {
  const hash = sha256(bytes);
  const directory = path.join(dirs.registry, `${name}.base`);
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, hash), bytes, { flag: 'w' });
  return hash;
}

/** Reads a stored base content by hash. */
export async function readBaseContent(
  dirs: ProjectWorktreeDirs,
  name: string,
  hash: string,
): Promise<Buffer> {
  return readFile(path.join(dirs.registry, `${name}.base`, hash));
}
