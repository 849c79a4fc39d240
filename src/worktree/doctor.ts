import { access, readdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { isOwnerAlive } from './owner.js';
import { type ProjectWorktreeDirs, type RegistryEntry, readAllEntries, removeEntry } from './registry.js';
import { removeWorktree } from './remove-worktree.js';
import { type GitWorktreeRecord, listGitWorktrees, locateRepository, type Repository } from './repository.js';
import type { WorktreeDoctorFinding, WorktreeDoctorOptions, WorktreeHost } from './types.js';

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function repairFinding(
  finding: WorktreeDoctorFinding,
  work: () => Promise<unknown>,
): Promise<WorktreeDoctorFinding> {
  try {
    await work();
    return { ...finding, repaired: true };
  } catch (error) {
    return {
      ...finding,
      detail: `${finding.detail} Repair failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function registeredFinding(entry: RegistryEntry, present: boolean): WorktreeDoctorFinding | undefined {
  const base = { name: entry.name, path: entry.path, branch: entry.branch, repaired: false };
  const alive = isOwnerAlive(entry.owner);
  if (entry.state === 'creating' && !alive) {
    return {
      ...base,
      kind: 'incomplete',
      detail: `Creation by process ${entry.owner.pid} was interrupted; repair removes what was made.`,
    };
  }
  if (entry.state === 'creating') return undefined;
  if (!present) {
    return {
      ...base,
      kind: 'missing',
      detail: `Registered, but the folder is gone; repair forgets it and deletes branch ${entry.branch}.`,
    };
  }
  if (!alive) {
    return {
      ...base,
      kind: 'owner-dead',
      detail: `Its process ${entry.owner.pid} (session ${entry.sessionId}) is gone; the worktree is intact: merge or discard it.`,
    };
  }
  return undefined;
}

/**
 * Finds orphaned worktrees of the workspace and, with `repair`, fixes them: `incomplete` and
 * `unregistered` ones are removed (folder, git entry, `safeturn/` branch), `missing` ones are
 * forgotten (git entry pruned, branch deleted, registry entry removed). `owner-dead` ones are
 * only reported: they stay mergeable and discardable.
 *
 * @returns the findings, each with `repaired`.
 */
export async function doctorWorktrees(
  host: WorktreeHost,
  dirs: ProjectWorktreeDirs,
  options: WorktreeDoctorOptions,
): Promise<WorktreeDoctorFinding[]> {
  const findings: WorktreeDoctorFinding[] = [];
  const { entries, invalid } = await readAllEntries(dirs);
  let repository: Repository | undefined;
  try {
    repository = await locateRepository(host.workspace, options.abortSignal);
  } catch {
    repository = undefined;
  }
  const gitRecords: GitWorktreeRecord[] = repository
    ? await listGitWorktrees(repository.root, options.abortSignal)
    : [];
  const root = await realpath(dirs.root);
  const registered = new Set(entries.map((entry) => entry.path));
  for (const entry of entries) {
    const finding = registeredFinding(entry, await exists(entry.path));
    if (!finding) continue;
    if (!options.repair || finding.kind === 'owner-dead') {
      findings.push(finding);
      continue;
    }
    findings.push(
      await repairFinding(finding, async () => {
        await removeWorktree({ repoRoot: entry.repoRoot, path: entry.path, branch: entry.branch });
        await removeEntry(dirs, entry.name);
      }),
    );
  }
  for (const name of invalid) {
    findings.push({
      kind: 'unregistered',
      name,
      path: path.join(root, name),
      branch: undefined,
      detail: `Its registry file ${name}.json is unreadable; inspect or delete it by hand.`,
      repaired: false,
    });
  }
  const unregisteredPaths = new Set<string>();
  for (const name of await readdir(root)) {
    if (name !== '_registry' && !invalid.includes(name) && !registered.has(path.join(root, name))) {
      unregisteredPaths.add(path.join(root, name));
    }
  }
  for (const record of gitRecords) {
    if (record.path.startsWith(`${root}${path.sep}`) && !registered.has(record.path))
      unregisteredPaths.add(record.path);
  }
  for (const worktreePath of [...unregisteredPaths].sort()) {
    const record = gitRecords.find((candidate) => candidate.path === worktreePath);
    const branch = record?.branch?.startsWith('safeturn/') ? record.branch : undefined;
    const finding: WorktreeDoctorFinding = {
      kind: 'unregistered',
      name: path.basename(worktreePath),
      path: worktreePath,
      branch,
      detail: `${record ? 'git lists this worktree' : 'This folder exists'} but safeturn has no record of it; repair removes it${branch ? ` and branch ${branch}` : ''}.`,
      repaired: false,
    };
    if (!options.repair) {
      findings.push(finding);
      continue;
    }
    findings.push(
      await repairFinding(finding, async () => {
        if (repository) await removeWorktree({ repoRoot: repository.root, path: worktreePath, branch });
        else await rm(worktreePath, { recursive: true, force: true });
      }),
    );
  }
  return findings;
}
