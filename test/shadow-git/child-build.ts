import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';

const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');

// A child process runs compiled JavaScript; it lives under node_modules/.cache so that the
// package's dependencies resolve from it.
const childScript = `
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { openShadowRepo } from './shadow-git/index.js';
const [workspace, home, session, start, count, mode] = process.argv.slice(2);
const repo = await openShadowRepo({ workspace, home });
process.stdout.write('open\\n');
await mkdir(path.join(workspace, session), { recursive: true });
for (let turn = Number(start); turn < Number(start) + Number(count); turn += 1) {
  const file = session + '/f' + (turn % 5) + '.txt';
  await writeFile(path.join(workspace, file), session + ' turn ' + turn + '\\n');
  const queued = await repo.commitTurn({ sessionId: session, turnId: turn, label: 'turn ' + turn, paths: [file] });
  if (mode === 'wait') await queued.committed;
  process.stdout.write('queued ' + turn + '\\n');
}
const report = await repo.close();
process.stdout.write('done ' + report.failures.length + '\\n');
`;

/** A compiled copy of src/ plus the child script; `remove()` deletes it. */
export interface ChildBuild {
  script: string;
  remove(): Promise<void>;
}

export async function buildChild(): Promise<ChildBuild> {
  const outDir = path.join(
    repositoryRoot,
    'node_modules',
    '.cache',
    `shadow-git-test-${randomBytes(4).toString('hex')}`,
  );
  await execa(
    'npx',
    [
      'tsc',
      '-p',
      'tsconfig.build.json',
      '--outDir',
      outDir,
      '--declaration',
      'false',
      '--sourceMap',
      'false',
    ],
    {
      cwd: repositoryRoot,
    },
  );
  const script = path.join(outDir, 'commit-loop.mjs');
  await writeFile(script, childScript);
  return { script, remove: () => rm(outDir, { recursive: true, force: true }) };
}
