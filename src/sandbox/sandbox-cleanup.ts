import type { Stats } from 'node:fs';
import { lstat, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { findGitLocations, listHookFiles } from './git-locations.js';
import type { SandboxPlan } from './sandbox-plan.js';
import { stubsInUse } from './stub-registry.js';

/** What {@link cleanupAfterRun} did. Nothing is only logged: every removal and every leftover is here. */
export interface SandboxCleanupReport {
  /** Empty mount stubs bwrap created on the host for missing protected paths (and their empty parents), removed. */
  removedStubs: string[];
  /** Stubs left in place, with the reason (e.g. not empty: something else wrote there). */
  keptStubs: { path: string; reason: string }[];
  /** Hook files that appeared in a `.git/hooks` (or core.hooksPath) during the command, removed. */
  removedHooks: string[];
  /** Protected files the command created (the workspace's safeturn.config.json), removed. */
  removedCreatedFiles: string[];
  /** Whether the private temp dir is gone. */
  temporaryDirectoryRemoved: boolean;
  /** Failures while cleaning up, as `path: message`. */
  problems: string[];
}

/** Options of {@link cleanupAfterRun}. */
export interface CleanupAfterRunOptions {
  plan: SandboxPlan;
  /** The private temp dir, removed whole; undefined when there is none. */
  temporaryRoot: string | undefined;
  /** Remove mount stubs (bwrap leaves them; Seatbelt does not create any). */
  removeStubs: boolean;
  /**
   * This run's stub registration (`<private temp dir>/stubs.json`, written by {@link registerStubs}).
   * Stubs another live run registered in a sibling private temp dir are kept, not removed.
   */
  stubRegistry?: string;
  home: string;
}

async function removeStub(
  entry: SandboxPlan['protectedEntries'][number],
  report: SandboxCleanupReport,
): Promise<void> {
  let stats: Stats;
  try {
    stats = await lstat(entry.path);
  } catch {
    return;
  }
  try {
    if (entry.kind === 'file') {
      if (!stats.isFile() || stats.size !== 0) {
        report.keptStubs.push({ path: entry.path, reason: 'not an empty file any more' });
        return;
      }
      await rm(entry.path);
    } else {
      if (!stats.isDirectory()) {
        report.keptStubs.push({ path: entry.path, reason: 'not a directory any more' });
        return;
      }
      await rmdir(entry.path);
    }
    report.removedStubs.push(entry.path);
  } catch (error) {
    report.keptStubs.push({ path: entry.path, reason: (error as Error).message });
    return;
  }
  // Parent directories bwrap created for the stub, up to the first one that was missing before.
  const stop = entry.firstMissing ?? entry.path;
  let parent = path.dirname(entry.path);
  while (stop !== entry.path && parent.length >= stop.length && parent.startsWith(stop)) {
    try {
      await rmdir(parent);
      report.removedStubs.push(parent);
    } catch {
      break;
    }
    parent = path.dirname(parent);
  }
}

/**
 * Undoes what a sandboxed run left on the host: mount stubs of missing protected paths, hook
 * files that appeared in any repository's hooks directory (new repositories included; `*.sample`
 * is not a hook), and the private temp dir. Never throws: failures are listed in `problems`.
 *
 * @returns a {@link SandboxCleanupReport}.
 */
export async function cleanupAfterRun(options: CleanupAfterRunOptions): Promise<SandboxCleanupReport> {
  const report: SandboxCleanupReport = {
    removedStubs: [],
    keptStubs: [],
    removedHooks: [],
    removedCreatedFiles: [],
    temporaryDirectoryRemoved: options.temporaryRoot === undefined,
    problems: [],
  };
  const { plan } = options;
  if (options.removeStubs) {
    const missing = plan.protectedEntries
      .filter((entry) => !entry.exists)
      .sort((left, right) => right.path.length - left.path.length);
    let inUse = new Set<string>();
    if (options.stubRegistry !== undefined) {
      await rm(options.stubRegistry, { force: true });
      if (missing.length > 0) inUse = await stubsInUse(options.stubRegistry);
    }
    for (const entry of missing) {
      if (inUse.has(entry.path))
        report.keptStubs.push({ path: entry.path, reason: 'in use by another sandboxed command' });
      else await removeStub(entry, report);
    }
  }
  for (const created of plan.removeIfCreated) {
    try {
      await lstat(created);
    } catch {
      continue;
    }
    try {
      await rm(created, { recursive: true, force: true });
      report.removedCreatedFiles.push(created);
    } catch (error) {
      report.problems.push(`${created}: ${(error as Error).message}`);
    }
  }
  if (plan.writable.length > 0) {
    try {
      const after = await listHookFiles(await findGitLocations(plan.writable, options.home));
      const before = new Set(plan.hookFilesBefore);
      for (const hook of after) {
        if (before.has(hook)) continue;
        try {
          await rm(hook, { force: true });
          report.removedHooks.push(hook);
        } catch (error) {
          report.problems.push(`${hook}: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      report.problems.push(`hook scan: ${(error as Error).message}`);
    }
  }
  if (options.temporaryRoot !== undefined) {
    try {
      await rm(options.temporaryRoot, { recursive: true, force: true });
      report.temporaryDirectoryRemoved = true;
    } catch (error) {
      report.problems.push(`${options.temporaryRoot}: ${(error as Error).message}`);
    }
  }
  return report;
}
