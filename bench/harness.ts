import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/** One row of the benchmark table. */
export interface BenchRow {
  /** Section, e.g. 'checkpoint', 'bash-staging', 'shadow-git', 'sandbox'. */
  group: string;
  /** What was measured, e.g. 'capture+write 50 files'. */
  name: string;
  /** Measured value. */
  value: number;
  /** Unit of `value`: 'ms', 'bytes', 'x', 'files', ... */
  unit: string;
  /** Free text: the baseline it is compared to, the target, pass/fail of a check. */
  note?: string;
}

/** Context given to each benchmark module. */
export interface BenchContext {
  /** A fresh temp directory for this module's own files. */
  scratch: string;
  /** Makes a real tree of at least `minFiles` files (a copy of the project's node_modules, repeated) at `dir`. */
  makeTree(dir: string, minFiles: number): Promise<number>;
  /** Runs a command and returns its stdout. */
  run(file: string, args: string[], cwd: string): string;
}

async function countFiles(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) count += 1;
  return count;
}

/** See {@link BenchContext.makeTree}. */
export async function makeTree(dir: string, minFiles: number): Promise<number> {
  const source = path.resolve(import.meta.dirname, '..', '..', 'node_modules');
  await mkdir(dir, { recursive: true });
  let copies = 0;
  let total = 0;
  while (total < minFiles) {
    await cp(source, path.join(dir, `copy${copies}`), { recursive: true, verbatimSymlinks: true });
    copies += 1;
    total = await countFiles(dir);
  }
  return total;
}

/** See {@link BenchContext.run}. */
export function run(file: string, args: string[], cwd: string): string {
  return execFileSync(file, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
