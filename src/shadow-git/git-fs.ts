import { randomBytes } from 'node:crypto';
import { promises as nodeFs } from 'node:fs';
import path from 'node:path';

/** The promise-style file system client isomorphic-git is given. */
export interface GitFileSystem {
  promises: typeof nodeFs;
}

/** Prefix of temp files beside loose objects; real git (`fsck`, `gc`) knows and ignores it. */
export const temporaryObjectPrefix = 'tmp_obj_';

async function writeFileAtomically(
  file: Parameters<typeof nodeFs.writeFile>[0],
  data: Parameters<typeof nodeFs.writeFile>[1],
  options?: Parameters<typeof nodeFs.writeFile>[2],
): Promise<void> {
  const target = String(file);
  const temp = path.join(path.dirname(target), `${temporaryObjectPrefix}${randomBytes(8).toString('hex')}`);
  try {
    await nodeFs.writeFile(temp, data, options);
    await nodeFs.rename(temp, target);
  } catch (error) {
    await nodeFs.rm(temp, { force: true });
    throw error;
  }
}

/**
 * A node `fs` for isomorphic-git whose `writeFile` is atomic (temp file + rename), so a process
 * killed while writing an object or a config leaves either nothing or the whole file, never a
 * torn one that isomorphic-git would later skip as "already present".
 *
 * @returns an object with an enumerable `promises` property, the shape isomorphic-git expects.
 */
export function createGitFileSystem(): GitFileSystem {
  const promises = { ...nodeFs, writeFile: writeFileAtomically } as typeof nodeFs;
  return { promises };
}
