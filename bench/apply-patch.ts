import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyPatch, parsePatch, planPatch } from '../src/tools/apply-patch/index.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

const FILE_LINES = 20_000;
const CHUNKS = 200;
const FILES = 20;
const ROUNDS = 7;

function sourceLines(): string[] {
  return Array.from(
    { length: FILE_LINES },
    (_, index) => `  const value${index} = compute(${index % 97}, "x");`,
  );
}

/** A patch of CHUNKS chunks, one every FILE_LINES / CHUNKS lines, each with 3 lines of context. */
function bigFilePatch(lines: string[]): string {
  const body: string[] = ['*** Begin Patch', '*** Update File: big.ts'];
  const step = Math.floor(lines.length / CHUNKS);
  for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
    const at = chunk * step + 3;
    body.push(
      '@@',
      ...lines.slice(at - 3, at).map((line) => ` ${line}`),
      `-${lines[at]}`,
      `+${lines[at]} // changed`,
    );
  }
  body.push('*** End Patch');
  return body.join('\n');
}

async function time(run: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * apply_patch benchmarks: parse + plan of a 200-chunk patch on a 20,000-line file (in memory),
 * applying a 20-file patch on disk, and the error path of a chunk that matches nowhere in the
 * big file (all four match levels plus the closest-candidate search).
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const lines = sourceLines();
  const content = new TextEncoder().encode(`${lines.join('\n')}\n`);
  const patch = bigFilePatch(lines);
  const plan = await time(() => planPatch({ patch: parsePatch(patch), readFile: () => content }));

  const missing = [
    '*** Begin Patch',
    '*** Update File: big.ts',
    '@@',
    ' nowhere 1',
    ' nowhere 2',
    '-nowhere 3',
    '+x',
    '*** End Patch',
  ].join('\n');
  const failing = await time(() => {
    try {
      planPatch({ patch: parsePatch(missing), readFile: () => content });
    } catch {
      // the error path is what is measured
    }
  });

  const root = path.join(context.scratch, 'apply-patch');
  await mkdir(root, { recursive: true });
  let round = 0;
  const onDisk = await time(async () => {
    const directory = path.join(root, `r${round++}`);
    await mkdir(directory);
    for (let file = 0; file < FILES; file += 1)
      await writeFile(path.join(directory, `m${file}.ts`), `export const v = ${file};\n`);
    const text = ['*** Begin Patch'];
    for (let file = 0; file < FILES; file += 1)
      text.push(
        `*** Update File: m${file}.ts`,
        `-export const v = ${file};`,
        `+export const v = ${file + 1};`,
      );
    text.push('*** End Patch');
    await applyPatch(text.join('\n'), { root: directory });
  });

  return [
    {
      group: 'apply-patch',
      name: `parse+plan ${CHUNKS} chunks, ${FILE_LINES}-line file`,
      value: plan,
      unit: 'ms',
      note: 'in memory, median of 7',
    },
    {
      group: 'apply-patch',
      name: `chunk matching nowhere, ${FILE_LINES}-line file`,
      value: failing,
      unit: 'ms',
      note: '4 match levels + candidates, median of 7',
    },
    {
      group: 'apply-patch',
      name: `apply ${FILES}-file patch on disk`,
      value: onDisk,
      unit: 'ms',
      note: 'parse, resolve, read, plan, atomic writes; median of 7',
    },
  ];
}
