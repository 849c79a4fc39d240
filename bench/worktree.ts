import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createWorktreeManager, type WorktreeHost } from '../src/worktree/index.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

const rounds = 3;

async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/**
 * Worktree layer: create (with a dirty tree carried), merge and discard on a repository of
 * >= 5,000 files, next to plain `git worktree add` / `git worktree remove` on the same repository.
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const repo = path.join(context.scratch, 'worktree-repo');
  const files = await context.makeTree(repo, 5000);
  const git = (args: string[], cwd = repo) =>
    context.run(
      'git',
      ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-c', 'commit.gpgsign=false', ...args],
      cwd,
    );
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'bench tree']);
  const tracked = git(['ls-files', '-z'])
    .split('\0')
    .filter((file) => file.endsWith('.js'))
    .slice(0, 50);
  for (const file of tracked) await appendFile(path.join(repo, file), '\n// user edit\n');
  await mkdir(path.join(repo, 'untracked'), { recursive: true });
  for (let index = 0; index < 20; index += 1)
    await writeFile(path.join(repo, 'untracked', `u${index}.txt`), `u${index}\n`);

  const host: WorktreeHost = {
    workspace: repo,
    home: path.join(context.scratch, 'worktree-home'),
    sessionId: 'bench',
    beforeWrite: async () => undefined,
    afterWrite: async () => undefined,
    setActiveRoot: () => undefined,
  };
  const manager = createWorktreeManager(host);
  const plainAdd: number[] = [];
  const plainRemove: number[] = [];
  const create: number[] = [];
  const merge: number[] = [];
  const discard: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const plain = path.join(context.scratch, `plain-${round}`);
    plainAdd.push(await timed(() => git(['worktree', 'add', '-q', '-b', `plain-${round}`, plain, 'HEAD'])));
    plainRemove.push(await timed(() => git(['worktree', 'remove', '--force', plain])));
    git(['branch', '-D', `plain-${round}`]);

    const name = `bench-${round}`;
    let root = '';
    create.push(
      await timed(async () => {
        root = (await manager.create({ name })).root;
      }),
    );
    for (const file of tracked) {
      await appendFile(path.join(root, file), `// agent edit ${round}\n`);
      const userFile = path.join(repo, file);
      await writeFile(userFile, `// user edit after creation ${round}\n${await readFile(userFile, 'utf8')}`);
    }
    for (let index = 0; index < 20; index += 1)
      await writeFile(path.join(root, `agent-${round}-${index}.txt`), 'new\n');
    merge.push(await timed(() => manager.merge({ name, strategy: 'theirs' })));
    discard.push(await timed(() => manager.discard({ name })));
  }
  const note = `${files} files, 50 modified + 20 untracked carried`;
  return [
    {
      group: 'worktree',
      name: 'plain git worktree add',
      value: median(plainAdd),
      unit: 'ms',
      note: `${files} files`,
    },
    {
      group: 'worktree',
      name: 'create (add + carry + lock + registry)',
      value: median(create),
      unit: 'ms',
      note,
    },
    {
      group: 'worktree',
      name: 'merge 70 changed files (50 three-way)',
      value: median(merge),
      unit: 'ms',
      note,
    },
    { group: 'worktree', name: 'plain git worktree remove', value: median(plainRemove), unit: 'ms' },
    { group: 'worktree', name: 'discard (remove + prune + branch -D)', value: median(discard), unit: 'ms' },
  ];
}
