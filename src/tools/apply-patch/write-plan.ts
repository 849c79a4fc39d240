import { chmod, mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { PatchApplyError } from './patch-apply-error.js';
import type { PlannedWrite } from './plan-patch.js';

/** A file as it was before the patch. */
export interface OriginalFile {
  content: Uint8Array | undefined;
  /** Permission bits (`stat.mode & 0o7777`), when the file existed. */
  mode?: number;
}

/** Options of {@link writePlan}. */
export interface WritePlanOptions {
  root: string;
  writes: PlannedWrite[];
  /** Root-relative path -> absolute path. */
  absolute: Map<string, string>;
  /** Root-relative path -> the file before the patch (every path in `writes`, and every `modeFrom`). */
  originals: Map<string, OriginalFile>;
  /** fsync each file before its rename. @default false */
  fsync?: boolean;
}

interface Done {
  path: string;
  absolute: string;
}

async function writeOne(
  file: string,
  content: Uint8Array,
  mode: number | undefined,
  fsync: boolean,
): Promise<void> {
  await writeFileAtomic(file, content, mode === undefined ? { fsync } : { mode, fsync });
  // The umask applies to the temp file's mode; put the original bits back exactly.
  if (mode !== undefined) await chmod(file, mode);
}

async function removeEmptyParents(root: string, file: string, top: string): Promise<void> {
  for (
    let directory = path.dirname(file);
    (directory === top || directory.startsWith(`${top}${path.sep}`)) && directory !== root;
    directory = path.dirname(directory)
  ) {
    try {
      await rmdir(directory);
    } catch {
      return;
    }
  }
}

/**
 * Writes a plan: new contents by atomic rename (parent directories created), then deletions.
 * If a write fails, every file already written is put back (and directories it created are
 * removed again) before the error is thrown.
 *
 * @returns the root-relative paths written or deleted, in order.
 * @throws PatchApplyError `PATCH_APPLY` with `data.phase = 'write'`, `data.path` and
 * `data.rollbackFailures` (paths that could not be put back; normally empty); `cause` is the fs error.
 */
export async function writePlan(options: WritePlanOptions): Promise<string[]> {
  const ordered = [
    ...options.writes.filter((write) => write.content !== undefined),
    ...options.writes.filter((write) => write.content === undefined),
  ];
  const fsync = options.fsync ?? false;
  const done: Done[] = [];
  const createdDirectories: string[] = [];
  for (const write of ordered) {
    const absolute = options.absolute.get(write.path)!;
    try {
      if (write.content === undefined) {
        await rm(absolute, { force: true });
      } else {
        const created = await mkdir(path.dirname(absolute), { recursive: true });
        if (created !== undefined) createdDirectories.push(created);
        const mode = write.modeFrom === undefined ? undefined : options.originals.get(write.modeFrom)?.mode;
        done.push({ path: write.path, absolute });
        await writeOne(absolute, write.content, mode, fsync);
        continue;
      }
      done.push({ path: write.path, absolute });
    } catch (error) {
      const rollbackFailures = await rollBack(options, done, createdDirectories);
      const reason = error instanceof Error ? error.message : String(error);
      throw new PatchApplyError(
        `Writing ${write.path} failed (${reason}). ${rollbackFailures.length === 0 ? 'Every file already written was put back; no file was changed.' : `These files could not be put back: ${rollbackFailures.map((failure) => failure.path).join(', ')}.`}`,
        { data: { path: write.path, phase: 'write', rollbackFailures }, cause: error },
      );
    }
  }
  return done.map((entry) => entry.path);
}

async function rollBack(
  options: WritePlanOptions,
  done: Done[],
  createdDirectories: string[],
): Promise<{ path: string; message: string }[]> {
  const failures: { path: string; message: string }[] = [];
  for (const entry of done.toReversed()) {
    const original = options.originals.get(entry.path);
    try {
      if (original?.content === undefined) await rm(entry.absolute, { force: true });
      else await writeOne(entry.absolute, original.content, original.mode, options.fsync ?? false);
    } catch (error) {
      failures.push({ path: entry.path, message: error instanceof Error ? error.message : String(error) });
    }
  }
  for (const top of createdDirectories) {
    for (const entry of done) await removeEmptyParents(options.root, entry.absolute, top);
    // Only empty directories go; one that is not empty holds a file someone else put there.
    await rmdir(top).catch(() => undefined);
  }
  return failures;
}
