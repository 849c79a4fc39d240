import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { resolvePolicy } from '../src/sandbox/resolve-policy.js';
import { detectSandboxSupport } from '../src/sandbox/sandbox-support.js';
import { wrapCommand } from '../src/sandbox/wrap-command.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

const RUNS = 50;

async function time(run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function sample(run: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  await run(); // warm-up
  for (let index = 0; index < RUNS; index += 1) samples.push(await time(run));
  return median(samples);
}

/**
 * Sandbox overhead: a sandboxed `true` (wrapCommand + bwrap + cleanup, network off, seccomp on)
 * against an unsandboxed one, median of 50 each, plus the planning cost on a >=5,000-file workspace
 * (the `.git` scan that runs before and after every command). Linux with bwrap only.
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  if (process.platform !== 'linux') {
    return [
      {
        group: 'sandbox',
        name: 'skipped',
        value: 0,
        unit: 'ms',
        note: `bwrap needs Linux, this is ${process.platform}`,
      },
    ];
  }
  const support = await detectSandboxSupport();
  const workspace = path.join(context.scratch, 'workspace');
  const home = path.join(context.scratch, 'home');
  await mkdir(workspace, { recursive: true });
  await mkdir(home, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    SAFETURN_HOME: path.join(context.scratch, 'safeturn-home'),
  };
  const policy = await resolvePolicy({}, { workspace, env });
  const runWrapped = async (): Promise<void> => {
    const wrapped = await wrapCommand(['true'], policy, { support, env });
    try {
      await execa(wrapped.file, wrapped.args, {
        env: wrapped.env,
        extendEnv: false,
        stdio: ['ignore', 'pipe', 'pipe', ...wrapped.extraStdio],
      });
    } finally {
      await wrapped.cleanup();
    }
  };
  const plain = await sample(async () => {
    await execa('true', [], { env, extendEnv: false });
  });
  const sandboxed = await sample(runWrapped);
  const detection = await sample(async () => {
    await detectSandboxSupport();
  });

  const big = path.join(context.scratch, 'big-workspace');
  const files = await context.makeTree(big, 5_000);
  const bigPolicy = await resolvePolicy({}, { workspace: big, env });
  const planning = await sample(async () => {
    const wrapped = await wrapCommand(['true'], bigPolicy, { support, env });
    await wrapped.cleanup();
  });
  return [
    { group: 'sandbox', name: 'unsandboxed `true`', value: plain, unit: 'ms', note: `median of ${RUNS}` },
    {
      group: 'sandbox',
      name: 'sandboxed `true` (bwrap, network off)',
      value: sandboxed,
      unit: 'ms',
      note: `median of ${RUNS}`,
    },
    {
      group: 'sandbox',
      name: 'sandbox overhead per command',
      value: sandboxed - plain,
      unit: 'ms',
      note: 'sandboxed minus unsandboxed',
    },
    {
      group: 'sandbox',
      name: 'detectSandboxSupport (version + probe)',
      value: detection,
      unit: 'ms',
      note: 'once per session; pass as `support`',
    },
    {
      group: 'sandbox',
      name: `wrapCommand + cleanup, ${files} files`,
      value: planning,
      unit: 'ms',
      note: '.git scan before and hook scan after',
    },
  ];
}
