import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { dir } from 'tmp-promise';
import { createSession } from '../../loop/create-session.js';
import { runAgentTurn } from './agent-turn.js';
import { buildProject, differingFiles, git, snapshotFiles } from './fixture.js';

/** One undo method's outcome. */
export interface DemoRow {
  method: string;
  /** True when every file matches the state before the turn, byte for byte. */
  matches: boolean;
  /** Files that differ from the state before the turn. */
  differing: string[];
}

/** Result of {@link runDemo}. */
export interface DemoResult {
  rows: DemoRow[];
  /** The temp directory holding the copies (removed unless `keep`). */
  directory: string;
}

interface Method {
  name: string;
  /** Runs before the agent's turn (snapshot methods). */
  before?: (dir: string) => Promise<string | undefined>;
  undo: (dir: string, saved: string | undefined, rewind: () => Promise<void>) => Promise<void>;
}

const methods: Method[] = [
  { name: 'safeturn rewind', undo: async (_dir, _saved, rewind) => rewind() },
  { name: 'git checkout -- .', undo: async (dir) => void (await git(dir, 'checkout', '--', '.')) },
  { name: 'git stash -u', undo: async (dir) => void (await git(dir, 'stash', '-u', '-q')) },
  {
    name: 'git checkout -- . && git clean -fd',
    undo: async (dir) => {
      await git(dir, 'checkout', '--', '.');
      await git(dir, 'clean', '-fdq');
    },
  },
  {
    name: 'git stash create (before) + reset --hard + stash apply',
    before: async (dir) => (await git(dir, 'stash', 'create')).trim() || undefined,
    undo: async (dir, saved) => {
      await git(dir, 'reset', '--hard', '-q');
      if (saved) await git(dir, 'stash', 'apply', '-q', saved);
    },
  },
];

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** Leave the temp directories on disk. @default false */
  keep?: boolean;
  /** Progress lines go here. */
  log?: (line: string) => void;
}

/**
 * The main job: builds a small git project with the user's own uncommitted work and a gitignored
 * .env, runs one agent turn through `wrapTools`, then undoes it five ways (each on a fresh copy)
 * and checks, byte for byte, which ways give back the folder exactly as it was before the turn.
 */
export async function runDemo(options: RunDemoOptions = {}): Promise<DemoResult> {
  const temp = await dir({ unsafeCleanup: true, prefix: 'safeturn-demo-' });
  try {
    const template = path.join(temp.path, 'template');
    await buildProject(template);
    const expected = await snapshotFiles(template);
    const rows: DemoRow[] = [];
    for (const [index, method] of methods.entries()) {
      const workspace = path.join(temp.path, `method-${index + 1}`);
      await cp(template, workspace, { recursive: true, verbatimSymlinks: true });
      const home = path.join(temp.path, 'safeturn-home');
      await mkdir(home, { recursive: true });
      const session = await createSession({ workspace, home, sessionId: `demo-${index + 1}` });
      const saved = await method.before?.(workspace);
      const turnId = await runAgentTurn(session);
      await method.undo(workspace, saved, async () => {
        const report = await session.rewind(turnId);
        options.log?.(
          `  safeturn rewind: ${report.restored.length} restored, ${report.deleted.length} deleted, ${report.failed.length} failed`,
        );
      });
      await session.close();
      const differing = differingFiles(expected, await snapshotFiles(workspace));
      rows.push({ method: method.name, matches: differing.length === 0, differing });
    }
    return { rows, directory: temp.path };
  } finally {
    if (!options.keep) await temp.cleanup();
  }
}

/** The demo's table as text. */
export function formatDemoTable(rows: DemoRow[]): string {
  const width = Math.max(...rows.map((row) => row.method.length), 6);
  const lines = [
    `${'method'.padEnd(width)}  same as before the turn?  files that differ`,
    `${'-'.repeat(width)}  ------------------------  ----------------`,
  ];
  for (const row of rows) {
    lines.push(
      `${row.method.padEnd(width)}  ${(row.matches ? 'yes, byte for byte' : 'NO').padEnd(24)}  ${row.differing.join(', ') || '-'}`,
    );
  }
  return lines.join('\n');
}
