import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as applyPatch from './apply-patch.js';
import * as bashStaging from './bash-staging.js';
import * as checkpoint from './checkpoint.js';
import { type BenchContext, type BenchRow, makeTree, run } from './harness.js';
import * as mcp from './mcp.js';
import * as sandbox from './sandbox.js';
import * as shadowGit from './shadow-git.js';
import * as worktree from './worktree.js';

const modules: [string, { runBench(context: BenchContext): Promise<BenchRow[]> }][] = [
  ['checkpoint', checkpoint],
  ['bash-staging', bashStaging],
  ['apply-patch', applyPatch],
  ['shadow-git', shadowGit],
  ['sandbox', sandbox],
  ['worktree', worktree],
  ['mcp', mcp],
];

function table(rows: BenchRow[]): string {
  const width = Math.max(...rows.map((row) => row.name.length));
  const lines: string[] = [];
  let group = '';
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      lines.push('', `## ${group}`);
    }
    const value =
      row.unit === 'ms'
        ? row.value.toFixed(row.value < 10 ? 3 : 1)
        : row.unit === 'x'
          ? row.value.toFixed(2)
          : String(Math.round(row.value));
    lines.push(`${row.name.padEnd(width)}  ${value.padStart(12)} ${row.unit.padEnd(5)}  ${row.note ?? ''}`);
  }
  return lines.join('\n');
}

const json = process.argv.includes('--json');
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const home = await mkdtemp(path.join(os.tmpdir(), 'safeturn-bench-home-'));
process.env.SAFETURN_HOME = path.join(home, '.safeturn');
const rows: BenchRow[] = [];
for (const [name, module] of modules) {
  if (only && !only.includes(name)) continue;
  const scratch = await mkdtemp(path.join(os.tmpdir(), `safeturn-bench-${name}-`));
  try {
    process.stderr.write(`bench: ${name}...\n`);
    rows.push(...(await module.runBench({ scratch, makeTree, run })));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
await rm(home, { recursive: true, force: true });
if (json)
  process.stdout.write(
    `${JSON.stringify({ v: 1, node: process.version, platform: process.platform, rows }, null, 2)}\n`,
  );
else process.stdout.write(`${table(rows)}\n`);
