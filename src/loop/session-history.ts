import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { DEFAULT_SKIP_DIRECTORIES, scanTree } from '../checkpoint/scan/scan-tree.js';
import { openShadowRepo } from '../shadow-git/open-shadow-repo.js';
import type { ShadowRepo } from '../shadow-git/shadow-repo.js';

/** Options of {@link openSessionHistory}. */
export interface SessionHistoryOptions {
  workspace: string;
  home: string;
  skipDirectories?: readonly string[];
  now?: () => Date;
  /** Commit the baseline when the repository has none. @default true */
  baseline?: boolean;
  /** Progress of the baseline scan (entries seen, every 5,000). */
  onScanProgress?: (entries: number) => void;
}

/** The shadow repository of a workspace and the promise of its baseline commit. */
export interface SessionHistory {
  repo: ShadowRepo;
  /** Resolves when the baseline (the covered files before the first turn) is committed. */
  baseline: Promise<unknown>;
}

/**
 * Opens the workspace's shadow repository (repairing what a crashed process left) and queues its
 * baseline commit when it has none: the covered files, by the same rules as bash staging
 * (skipped directories and `.safeturnignore` left out).
 */
export async function openSessionHistory(options: SessionHistoryOptions): Promise<SessionHistory> {
  const now = options.now;
  const repo = await openShadowRepo({
    workspace: options.workspace,
    home: options.home,
    ...(now ? { now: () => now().getTime() } : {}),
  });
  const existing = await repo.baselineId();
  if (existing !== undefined || options.baseline === false)
    return { repo, baseline: Promise.resolve(existing) };
  const rules = await readFile(path.join(options.workspace, '.safeturnignore'), 'utf8').catch(
    () => undefined,
  );
  const scan = scanTree({
    root: options.workspace,
    skipDirectories: options.skipDirectories ?? DEFAULT_SKIP_DIRECTORIES,
    exclude: [options.home],
    ...(options.onScanProgress ? { onProgress: options.onScanProgress } : {}),
    ...(rules === undefined ? {} : { ignore: ignore().add(rules) }),
  });
  const baseline = repo.ensureBaseline({ paths: [...scan.entries.keys()].sort() });
  // The repository keeps the failure for flush(); this copy only must not go unhandled.
  baseline.catch(() => undefined);
  return { repo, baseline };
}
