import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { openShadowRepo } from '../src/shadow-git/index.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

const group = 'shadow-git';
const runs = 7;

async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (!relative.startsWith('.git/')) files.push(relative);
  }
  return files.sort();
}

/** Runs the user-style git in `cwd` with GIT_DIR & co. removed, so it can only touch that tree's .git. */
function runGit(args: string[], cwd: string): void {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_')));
  execFileSync('git', args, { cwd, env, stdio: 'ignore' });
}

function pick(files: string[], count: number, round: number): string[] {
  // Spread over the tree, different files every round, so each commit touches deep, distinct paths.
  const step = Math.floor(files.length / count);
  return Array.from({ length: count }, (_, index) => files[(index * step + round * 7919) % files.length]!);
}

async function benchTree(context: BenchContext, minFiles: number): Promise<BenchRow[]> {
  const tree = path.join(context.scratch, `tree-${minFiles}`);
  const fileCount = await context.makeTree(tree, minFiles);
  const files = await listFiles(tree);
  const gitEnv = [
    '-c',
    'user.name=bench',
    '-c',
    'user.email=bench@localhost',
    '-c',
    'commit.gpgsign=false',
    '-c',
    'gc.auto=0',
  ];
  runGit(['init', '-q'], tree);
  runGit([...gitEnv, 'add', '-A'], tree);
  runGit([...gitEnv, 'commit', '-q', '-m', 'baseline'], tree);

  const home = path.join(context.scratch, `home-${minFiles}`);
  await mkdir(home, { recursive: true });
  const baselineStart = performance.now();
  const repo = await openShadowRepo({ workspace: tree, home, baselinePaths: files });
  const baselineMs = performance.now() - baselineStart;
  const rows: BenchRow[] = [
    {
      group,
      name: `baseline commit, ${fileCount}-file tree`,
      value: Math.round(baselineMs),
      unit: 'ms',
      note: 'once per workspace',
    },
  ];
  let turn = 0;
  for (const changed of [4, 50]) {
    const queuedMs: number[] = [];
    const commitMs: number[] = [];
    const gitMs: number[] = [];
    for (let round = 0; round < runs; round += 1) {
      turn += 1;
      const paths = pick(files, changed, turn);
      for (const relative of paths) await appendFile(path.join(tree, relative), `\n// bench turn ${turn}\n`);
      const start = performance.now();
      const queued = await repo.commitTurn({
        sessionId: 'bench',
        turnId: turn,
        label: `bench ${changed}`,
        paths,
      });
      queuedMs.push(performance.now() - start);
      await queued.committed;
      commitMs.push(performance.now() - start);
      const gitStart = performance.now();
      runGit([...gitEnv, 'add', '-A'], tree);
      runGit([...gitEnv, 'commit', '-q', '-m', `bench ${turn}`], tree);
      gitMs.push(performance.now() - gitStart);
    }
    const ours = median(commitMs);
    const theirs = median(gitMs);
    rows.push(
      {
        group,
        name: `commitTurn ${changed} files, ${fileCount}-file tree (until committed)`,
        value: Number(ours.toFixed(1)),
        unit: 'ms',
        note: `median of ${runs}; git CLI ${theirs.toFixed(1)} ms; ${ours < theirs ? 'faster' : 'SLOWER'} (${(theirs / ours).toFixed(1)}x)`,
      },
      {
        group,
        name: `commitTurn ${changed} files, ${fileCount}-file tree (until queued)`,
        value: Number(median(queuedMs).toFixed(1)),
        unit: 'ms',
        note: 'what the end of a turn waits for: blobs and pending record written',
      },
      {
        group,
        name: `git add -A && git commit, ${changed} files, ${fileCount}-file tree`,
        value: Number(theirs.toFixed(1)),
        unit: 'ms',
        note: `median of ${runs}, real git CLI on the same tree`,
      },
    );
  }
  const report = await repo.close();
  if (report.failures.length > 0) throw report.failures[0]!.error;
  return rows;
}

/**
 * Shadow-git benchmark: commit of a 4-file and a 50-file turn on a >=5,000-file and a
 * >=50,000-file tree, next to `git add -A && git commit` with the real git CLI on the same tree.
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const small = await benchTree(context, 5_000);
  const large = await benchTree(context, 50_000);
  const rows = [...small, ...large];
  const fourSmall = small.find(
    (row) => row.name.startsWith('commitTurn 4 files') && row.name.endsWith('(until committed)'),
  )!;
  const fourLarge = large.find(
    (row) => row.name.startsWith('commitTurn 4 files') && row.name.endsWith('(until committed)'),
  )!;
  const ratio = fourLarge.value / fourSmall.value;
  rows.push({
    group,
    name: '4-file commit, 50k-file tree / 5k-file tree',
    value: Number(ratio.toFixed(2)),
    unit: 'x',
    note: ratio < 1.5 ? 'flat: does not grow with tree size' : 'GROWS with tree size',
  });
  return rows;
}
