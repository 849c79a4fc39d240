import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSession } from '../src/loop/create-session.js';
import { wrapTools } from '../src/loop/wrap-tools.js';
import { createReferenceTools } from '../src/tools/reference-tools.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(path.relative(root, path.join(entry.parentPath, entry.name)));
  }
  return files.sort();
}

async function hashTree(root: string, files: string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const file of files)
    hashes.set(
      file,
      createHash('sha256')
        .update(await readFile(path.join(root, file)))
        .digest('hex'),
    );
  return hashes;
}

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/**
 * Checkpoint rows: on a real tree of >= 5,000 files, turns that capture+write 4, 50, 500 and all
 * files (under the size cap) through the wrapped `write` tool, then rewind; per-capture ms of the
 * first and last 100 captures, store size, restore ms, byte-for-byte verification; and, in the
 * same run, `git add -A && git stash create` on the same tree as the baseline.
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const workspace = path.join(context.scratch, 'tree');
  const total = await context.makeTree(workspace, 5000);
  const home = path.join(context.scratch, 'home');
  const all = await listFiles(workspace);
  const sizeCap = 8 * 1024 * 1024;
  const sizes = new Map<string, number>();
  for (const file of all) sizes.set(file, (await stat(path.join(workspace, file))).size);
  const candidates = all.filter((file) => (sizes.get(file) ?? 0) <= sizeCap);
  rows.push({
    group: 'checkpoint',
    name: 'tree',
    value: total,
    unit: 'files',
    note: `${candidates.length} under the 8 MiB cap`,
  });
  const original = await hashTree(workspace, all);
  context.run('git', ['init', '-q'], workspace);
  context.run('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A'], workspace);
  context.run('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'base'], workspace);
  const scenarios: [string, number][] = [
    ['4', 4],
    ['50', 50],
    ['500', 500],
    ['all', candidates.length],
  ];
  for (const [label, count] of scenarios) {
    const step = Math.max(1, Math.floor(candidates.length / count));
    const targets = candidates.filter((_, index) => index % step === 0).slice(0, count);
    const session = await createSession({
      workspace,
      home,
      sessionId: `bench-${label}`,
      sizeCapBytes: sizeCap,
    });
    const tools = wrapTools({ session, tools: createReferenceTools() });
    await session.beginTurn({ label: `write ${label}` });
    const contents: string[] = [];
    for (const file of targets) {
      await session.recordRead(file);
      contents.push(
        `${(await readFile(path.join(workspace, file))).toString('latin1')}\n/* edited by the bench */\n`,
      );
    }
    const perCall: number[] = [];
    for (const [index, file] of targets.entries()) {
      const started = performance.now();
      const result = await tools.write.execute(
        { path: file, content: contents[index]! },
        { root: session.root },
      );
      perCall.push(performance.now() - started);
      if (!result.ok) throw new Error(`bench write failed: ${JSON.stringify(result)}`);
    }
    await session.endTurn();
    await session.flush();
    const first = perCall.slice(0, 100);
    const last = perCall.slice(-100);
    const firstMedian = median(first);
    const lastMedian = median(last);
    rows.push({
      group: 'checkpoint',
      name: `capture+write ${targets.length} files: per call, first 100 (median)`,
      value: firstMedian,
      unit: 'ms',
    });
    rows.push({
      group: 'checkpoint',
      name: `capture+write ${targets.length} files: per call, last 100 (median)`,
      value: lastMedian,
      unit: 'ms',
      note: `last/first = ${(lastMedian / firstMedian).toFixed(2)}x (target <= 1.5x)`,
    });
    // git baseline on the same modified tree, same run.
    const gitStarted = performance.now();
    context.run('git', ['add', '-A'], workspace);
    context.run('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'stash', 'create'], workspace);
    const gitMs = performance.now() - gitStarted;
    context.run('git', ['reset', '-q'], workspace);
    const restoreStarted = performance.now();
    const report = await session.rewind(1);
    const restoreMs = performance.now() - restoreStarted;
    const after = await hashTree(
      workspace,
      await listFiles(workspace).then((files) => files.filter((file) => !file.startsWith('.git/'))),
    );
    const mismatched =
      [...original].filter(([file, hash]) => after.get(file) !== hash).length +
      [...after.keys()].filter((file) => !original.has(file)).length;
    rows.push({
      group: 'checkpoint',
      name: `rewind ${targets.length} files`,
      value: restoreMs,
      unit: 'ms',
      note: `${report.restored.length} restored, ${report.failed.length} failed; byte-for-byte: ${mismatched === 0 ? 'all files match' : `${mismatched} MISMATCHED`}`,
    });
    rows.push({
      group: 'checkpoint',
      name: `baseline: git add -A && git stash create (${targets.length} files changed)`,
      value: gitMs,
      unit: 'ms',
    });
    await session.close();
  }
  rows.push({
    group: 'checkpoint',
    name: 'store size after all scenarios',
    value: await dirSize(path.join(home, 'projects')),
    unit: 'bytes',
  });
  // keep the tree clean for other modules
  await writeFile(path.join(context.scratch, 'checkpoint-done'), 'ok');
  return rows;
}
