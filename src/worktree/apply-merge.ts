import { chmod, mkdir, rm, rmdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';
import type { WorktreeSkippedFile } from './merge-types.js';
import type { MergeOperation } from './plan-merge.js';
import type { WorktreeHost } from './types.js';

async function removeEmptyParents(workspace: string, file: string): Promise<void> {
  let directory = path.dirname(file);
  while (directory !== workspace && directory.startsWith(`${workspace}${path.sep}`)) {
    try {
      await rmdir(directory);
    } catch {
      return; // not empty (or gone): stop climbing
    }
    directory = path.dirname(directory);
  }
}

async function applyOne(workspace: string, operation: MergeOperation): Promise<void> {
  switch (operation.kind) {
    case 'write':
      await mkdir(path.dirname(operation.absolute), { recursive: true });
      await writeFileAtomic(operation.absolute, operation.bytes, { mode: operation.permissions });
      await chmod(operation.absolute, operation.permissions);
      return;
    case 'symlink':
      await mkdir(path.dirname(operation.absolute), { recursive: true });
      await rm(operation.absolute, { force: true });
      await symlink(operation.target, operation.absolute);
      return;
    case 'delete':
      await rm(operation.absolute, { force: true });
      await removeEmptyParents(workspace, operation.absolute);
      return;
    case 'chmod':
      await chmod(operation.absolute, operation.permissions);
      return;
  }
}

/**
 * Carries out a merge plan in the user's folder through the checkpoint seam: one
 * `host.beforeWrite` with every path first, then the writes, then `host.afterWrite` (also when
 * some writes failed). A failed write does not stop the others; it is returned.
 *
 * @returns the operations that failed, with the error message.
 * @throws whatever `host.beforeWrite` throws (then nothing was written).
 */
export async function applyMerge(
  host: WorktreeHost,
  operations: MergeOperation[],
): Promise<WorktreeSkippedFile[]> {
  if (operations.length === 0) return [];
  const paths = operations.map((operation) => operation.path);
  await host.beforeWrite(host.workspace, paths);
  const failed: WorktreeSkippedFile[] = [];
  try {
    for (const operation of operations) {
      try {
        await applyOne(host.workspace, operation);
      } catch (error) {
        failed.push({ path: operation.path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    await host.afterWrite(host.workspace, paths);
  }
  return failed;
}
