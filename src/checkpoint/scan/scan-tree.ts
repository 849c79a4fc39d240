import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { Ignore } from 'ignore';

/** Directory names the scan never descends into, at any depth (configurable; `.git` always). */
export const DEFAULT_SKIP_DIRECTORIES: readonly string[] = [
  'node_modules',
  '.git',
  'dist',
  'build',
  'target',
  '.next',
  '.venv',
  '__pycache__',
  '.cache',
];

/** What the scan saw of one file or symlink. */
export interface ScanEntry {
  kind: 'file' | 'symlink';
  mtimeNs: bigint;
  size: number;
  ino: number;
  mode: number;
  /** Symlink target (symlinks only). */
  target?: string;
  /** Hard link count: a file with more than one can change through a path outside the scan. */
  links?: number;
}

/** A path the scan could not cover, and why. */
export interface UncoveredPath {
  path: string;
  reason: 'skipped-directory' | 'safeturnignore' | 'invalid-name' | 'unreadable' | 'special-file';
  /** For skipped directories: mtime of the directory and its first two levels, to notice changes cheaply. */
  fingerprint?: string;
}

/** Result of {@link scanTree}. */
export interface TreeScan {
  /** Root-relative POSIX path -> entry, for every covered file and symlink. */
  entries: Map<string, ScanEntry>;
  /** Every covered directory (root-relative, without trailing slash). */
  directories: Set<string>;
  /** Skipped directories, ignored entries, bad names. */
  uncovered: UncoveredPath[];
}

/** Options of {@link scanTree}. */
export interface ScanTreeOptions {
  root: string;
  /** Directory names never descended into. `.git` is always added. @default DEFAULT_SKIP_DIRECTORIES */
  skipDirectories?: readonly string[];
  /** Rules from `.safeturnignore` (gitignore syntax). */
  ignore?: Ignore;
  /** Scan only this root-relative directory's subtree (it is included in `directories`). @default the whole root */
  start?: string;
  /** Absolute directories never scanned nor reported (safeturn's own home, when the workspace contains it). */
  exclude?: readonly string[];
  /** Called with the number of entries seen so far, every 5,000 entries (for a progress line). */
  onProgress?: (entries: number) => void;
}

/**
 * `mtimeNs:size:ino` of an entry whose decoded name cannot be used as a path (not valid UTF-8):
 * the directory is read again as raw bytes to reach it.
 */
export function rawFingerprint(directory: string, decodedName: string): string {
  try {
    for (const raw of readdirSync(directory, { encoding: 'buffer' })) {
      if (raw.toString('utf8') !== decodedName) continue;
      const stats = lstatSync(Buffer.concat([Buffer.from(`${directory}/`), raw]), { bigint: true });
      return `${stats.mtimeNs}:${stats.size}:${stats.ino}`;
    }
  } catch {
    // gone or unreadable
  }
  return 'unknown';
}

/** mtimes of a skipped directory and its first two levels: notices additions and removals cheaply. */
export function shallowFingerprint(absolute: string): string {
  const parts: string[] = [];
  const visit = (directory: string, depth: number) => {
    try {
      parts.push(`${directory}:${lstatSync(directory, { bigint: true }).mtimeNs}`);
      if (depth === 0) return;
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        if (entry.isDirectory()) visit(path.join(directory, entry.name), depth - 1);
      }
    } catch {
      parts.push(`${directory}:gone`);
    }
  };
  visit(absolute, 2);
  return parts.join('|');
}

/**
 * Stat-scans a tree: one `readdir` per directory and one `lstat` per entry, no reads. Synchronous on
 * purpose: the scan is a tight loop of metadata calls, several times faster than the promise API.
 * Never descends into skipped directories or `.safeturnignore`d ones; never follows symlinks.
 */
export function scanTree(options: ScanTreeOptions): TreeScan {
  const skip = new Set([...(options.skipDirectories ?? DEFAULT_SKIP_DIRECTORIES), '.git']);
  const entries = new Map<string, ScanEntry>();
  const directories = new Set<string>();
  const uncovered: UncoveredPath[] = [];
  const stack: string[] = [options.start ?? ''];
  if (options.start) directories.add(options.start);
  while (stack.length > 0) {
    const relativeDir = stack.pop()!;
    const absoluteDir = relativeDir === '' ? options.root : path.join(options.root, relativeDir);
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(absoluteDir, { withFileTypes: true });
    } catch {
      if (relativeDir !== '') uncovered.push({ path: relativeDir, reason: 'unreadable' });
      continue;
    }
    for (const dirent of names) {
      const name = dirent.name;
      const relative = relativeDir === '' ? name : `${relativeDir}/${name}`;
      if (name.includes('\uFFFD') || name.includes('\\')) {
        uncovered.push({
          path: relative,
          reason: 'invalid-name',
          fingerprint: rawFingerprint(absoluteDir, name),
        });
        continue;
      }
      const isDirectory = dirent.isDirectory();
      if (options.ignore?.ignores(isDirectory ? `${relative}/` : relative)) {
        uncovered.push({ path: relative, reason: 'safeturnignore' });
        continue;
      }
      if (isDirectory) {
        if (options.exclude?.includes(path.join(options.root, relative))) continue;
        if (skip.has(name)) {
          uncovered.push({
            path: relative,
            reason: 'skipped-directory',
            fingerprint: shallowFingerprint(path.join(options.root, relative)),
          });
          continue;
        }
        directories.add(relative);
        stack.push(relative);
        continue;
      }
      if (!dirent.isFile() && !dirent.isSymbolicLink()) {
        // fifos, sockets, devices: never stored or restored; named so nothing is silent.
        uncovered.push({
          path: relative,
          reason: 'special-file',
          fingerprint: rawFingerprint(absoluteDir, name),
        });
        continue;
      }
      const absolute = path.join(options.root, relative);
      let stats: import('node:fs').BigIntStats;
      try {
        stats = lstatSync(absolute, { bigint: true });
      } catch {
        continue;
      }
      const entry: ScanEntry = {
        kind: stats.isSymbolicLink() ? 'symlink' : 'file',
        mtimeNs: stats.mtimeNs,
        size: Number(stats.size),
        ino: Number(stats.ino),
        mode: Number(stats.mode & 0o7777n),
        links: Number(stats.nlink),
      };
      if (entry.kind === 'symlink') {
        try {
          entry.target = readlinkSync(absolute);
        } catch {
          continue;
        }
      }
      entries.set(relative, entry);
      if (options.onProgress && entries.size % 5000 === 0) options.onProgress(entries.size);
    }
  }
  return { entries, directories, uncovered };
}
