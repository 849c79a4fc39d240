import { realpath, stat } from 'node:fs/promises';
import { resolveHome } from '../core/home.js';
import { UsageError } from '../errors/usage-error.js';
import type { CommitContext } from './commit-writer.js';
import { createGitFileSystem } from './git-fs.js';
import { parseInput } from './input-schemas.js';
import { type OpenShadowRepoOptions, openShadowRepoOptionsSchema } from './open-options.js';
import { ensureStateDirectories, initialiseRepository, repositoryLayout } from './repository-layout.js';
import { withRepositoryLock } from './repository-lock.js';
import { ShadowRepo } from './shadow-repo.js';

/**
 * Opens (creating on first use) the shadow repository of a workspace at
 * `<home>/projects/<id>/shadow.git`: a bare git directory with a private config, separate from the
 * workspace (whose own `.git`, if any, is never opened). Repairs what a killed process left, and,
 * when `baselinePaths` is given and there is no baseline yet, commits it before returning (so the
 * baseline never sees the first turn's writes; call {@link ShadowRepo.ensureBaseline} yourself to
 * take it in the background instead).
 *
 * @param options - see {@link OpenShadowRepoOptions}; `workspace` is required.
 * @returns a {@link ShadowRepo}; `openRepair` tells what was repaired.
 * @throws UsageError `INVALID_INPUT` (bad options, workspace not a directory); StoreError `LOCK_TIMEOUT`.
 * @example
 * ```ts
 * await using repo = await openShadowRepo({ workspace: '/work/app', baselinePaths: scannedPaths });
 * await repo.commitTurn({ sessionId: 's1', turnId: 1, label: 'add readme', paths: ['README.md'] });
 * console.log(await repo.log({ limit: 10 }));
 * ```
 */
export async function openShadowRepo(options: OpenShadowRepoOptions): Promise<ShadowRepo> {
  const settings = parseInput(openShadowRepoOptionsSchema, options, 'openShadowRepo options');
  let workspace: string;
  try {
    workspace = await realpath(settings.workspace);
    if (!(await stat(workspace)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new UsageError('INVALID_INPUT', `The workspace ${settings.workspace} is not a directory.`, {
      data: { workspace: settings.workspace },
      cause: error,
    });
  }
  const layout = repositoryLayout(resolveHome(settings.home), workspace);
  const fileSystem = createGitFileSystem();
  const context: CommitContext = {
    fs: fileSystem,
    gitdir: layout.gitdir,
    cache: {},
    parsed: new Map(),
    known: new Set<string>(),
    workspace,
    pendingDir: layout.pendingDir,
    maxFileBytes: settings.maxFileBytes,
  };
  await ensureStateDirectories(layout);
  await withRepositoryLock(
    {
      lockFile: layout.lockFile,
      timeoutMs: settings.lockTimeoutMs,
      purpose: 'open',
      abortSignal: settings.abortSignal,
    },
    () => initialiseRepository(layout, workspace, fileSystem),
  );
  const repo = new ShadowRepo(layout, context, settings);
  repo.openRepair = await repo.repair(settings.abortSignal ? { abortSignal: settings.abortSignal } : {});
  if (settings.baselinePaths !== undefined) {
    try {
      await repo.ensureBaseline({
        paths: settings.baselinePaths,
        label: settings.baselineLabel,
        ...(settings.abortSignal ? { abortSignal: settings.abortSignal } : {}),
      });
    } catch (error) {
      await repo.close();
      throw error;
    }
  }
  return repo;
}
