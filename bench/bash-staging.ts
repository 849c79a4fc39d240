import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSession } from '../src/loop/create-session.js';
import { wrapTools } from '../src/loop/wrap-tools.js';
import { createReferenceTools } from '../src/tools/reference-tools.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

/**
 * Bash staging rows on a real >= 5,000-file tree: the first scan that fills the stat cache, the
 * pre+post of a call that changes nothing (with watches, and as full stat scans) (vs `git add -A && git stash create`, same run),
 * and calls that change 5, 50 and 500 files (cost grows with the files changed).
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const workspace = path.join(context.scratch, 'tree');
  // Copy the tree under a name the scan does not skip.
  const files = await context.makeTree(path.join(workspace, 'vendor'), 5000);
  const session = await createSession({
    workspace,
    home: path.join(context.scratch, 'home'),
    sessionId: 'bench-bash',
  });
  const staging = session.staging;
  await session.beginTurn({ label: 'bench' });
  let started = performance.now();
  const first = await staging.stage(workspace);
  rows.push({
    group: 'bash-staging',
    name: `first scan (fills the stat cache, stores ${first.hashedFiles} pre-images)`,
    value: performance.now() - started,
    unit: 'ms',
    note: `${files} files in the tree`,
  });
  // Settle racy entries once, as a second call would.
  await staging.finish(await staging.stage(workspace), session.checkpoints, 't1');
  const scanTimes: number[] = [];
  for (let index = 0; index < 7; index += 1) {
    started = performance.now();
    const staged = await staging.stage(workspace);
    await staging.finish(staged, session.checkpoints, 't1');
    scanTimes.push(performance.now() - started);
  }
  const scanMs = median(scanTimes);
  const scanning = await createSession({
    workspace,
    home: path.join(context.scratch, 'home'),
    sessionId: 'bench-bash-scan',
    watchFiles: false,
  });
  await scanning.beginTurn({ label: 'full scans' });
  await scanning.staging.finish(await scanning.staging.stage(workspace), scanning.checkpoints, 't1');
  const fullTimes: number[] = [];
  for (let index = 0; index < 7; index += 1) {
    started = performance.now();
    const staged = await scanning.staging.stage(workspace);
    await scanning.staging.finish(staged, scanning.checkpoints, 't1');
    fullTimes.push(performance.now() - started);
  }
  await scanning.endTurn();
  await scanning.close();
  const fullMs = median(fullTimes);
  context.run('git', ['init', '-q'], workspace);
  context.run('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A'], workspace);
  context.run(
    'git',
    ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'base', '--no-verify'],
    workspace,
  );
  const gitTimes: number[] = [];
  for (let index = 0; index < 7; index += 1) {
    started = performance.now();
    context.run('git', ['add', '-A'], workspace);
    context.run('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'stash', 'create'], workspace);
    gitTimes.push(performance.now() - started);
  }
  const gitMs = median(gitTimes);
  rows.push({
    group: 'bash-staging',
    name: 'pre+post full stat scans, watches off (median of 7)',
    value: fullMs,
    unit: 'ms',
    note: `${(gitMs / fullMs).toFixed(1)}x git (the fallback, and the only mode off Linux)`,
  });
  rows.push({
    group: 'bash-staging',
    name: 'pre+post of a call that changes nothing, inotify watches (median of 7)',
    value: scanMs,
    unit: 'ms',
    note: `${(gitMs / scanMs).toFixed(1)}x faster than git (target >= 2x)`,
  });
  rows.push({
    group: 'bash-staging',
    name: 'baseline: git add -A && git stash create, no change (median of 7)',
    value: gitMs,
    unit: 'ms',
  });
  const tools = wrapTools({ session, tools: createReferenceTools() });
  for (const count of [5, 50, 500]) {
    const command = `for i in $(seq 1 ${count}); do echo "generated $i $RANDOM" > gen-$i.txt; done`;
    const runs: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      started = performance.now();
      await tools.bash.execute({ command }, { root: session.root });
      runs.push(performance.now() - started);
    }
    const noop = [] as number[];
    for (let index = 0; index < 3; index += 1) {
      started = performance.now();
      await tools.bash.execute({ command: `for i in $(seq 1 ${count}); do :; done` }, { root: session.root });
      noop.push(performance.now() - started);
    }
    rows.push({
      group: 'bash-staging',
      name: `bash call that changes ${count} files (median of 3)`,
      value: median(runs),
      unit: 'ms',
      note: `same command changing nothing: ${median(noop).toFixed(1)} ms`,
    });
  }
  await session.endTurn();
  await session.close();
  return rows;
}
