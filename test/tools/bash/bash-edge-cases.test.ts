import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoverageNote } from '../../../src/checkpoint/scan/coverage.js';
import { createSessionTools } from '../../../src/loop/session-tools.js';
import { createSession, exists, read, tempDir, writeFiles } from '../../helpers.js';

async function open(options: { watchFiles?: boolean; sandbox?: boolean } = {}) {
  const workspace = await tempDir();
  const session = await createSession({ workspace, home: await tempDir(), ...options });
  const tools = createSessionTools(session);
  const bash = async (command: string) =>
    (await tools.bash.execute({ command }, { root: session.root })) as unknown as {
      ok: boolean;
      output: string;
      coverage: CoverageNote;
    };
  return { workspace: session.workspace, session, tools, bash };
}

describe('bash staging edge cases', () => {
  it('a change through a hard link from a skipped directory is captured with watches on', async () => {
    const { workspace, session, bash } = await open();
    await writeFiles(workspace, { 'a.txt': 'original\n', 'node_modules/.keep': '' });
    await session.beginTurn({ label: 'link' });
    await bash('ln a.txt node_modules/hl');
    await session.endTurn();
    await session.beginTurn({ label: 'clobber' });
    const result = await bash('echo CLOBBERED > node_modules/hl');
    expect(result.coverage.modified).toEqual(['a.txt']);
    await session.endTurn();
    await session.rewind(1);
    expect(await read(workspace, 'a.txt')).toBe('original\n');
  });

  it('a fifo the command creates is named as not covered', async () => {
    const { session, bash } = await open();
    await session.beginTurn({ label: 'fifo' });
    const result = await bash('mkfifo pipe');
    expect(result.coverage.uncovered).toMatchObject([{ path: 'pipe', reason: 'special-file' }]);
    expect(result.output).toContain('NOT covered by rewind: pipe');
  });

  for (const watchFiles of [true, false]) {
    it(`a file with a non-UTF-8 name changed by the command is named (${watchFiles ? 'watches' : 'scans'})`, async () => {
      const { workspace, session, bash } = await open({ watchFiles });
      await writeFile(
        Buffer.concat([Buffer.from(`${workspace}/bad`), Buffer.from([0xff]), Buffer.from('name')]),
        'orig',
      );
      await session.beginTurn({ label: 'bad name' });
      await bash('true');
      const result = await bash('for f in bad*name; do echo NEW > "$f"; done');
      expect(result.coverage.uncovered.map((item) => item.reason)).toEqual(['invalid-name']);
      expect(result.coverage.uncovered[0]!.detail).toContain('changed');
    });
  }

  it('a file over the size cap the agent created is deleted by rewind, without a false conflict', async () => {
    const { workspace, session, tools, bash } = await open();
    await session.beginTurn({ label: 'big' });
    const made = await bash('head -c 9000000 /dev/zero > big.bin');
    expect(made.coverage.created).toEqual(['big.bin']);
    expect(made.coverage.uncovered).toEqual([]);
    await tools.write.execute({ path: 'big2.txt', content: 'x'.repeat(9_000_000) }, { root: session.root });
    await session.endTurn();
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    expect(report.deleted.sort()).toEqual(['big.bin', 'big2.txt']);
    expect(await exists(workspace, 'big.bin')).toBe(false);
    const redo = await session.redo();
    expect(redo.skipped.map((item) => item.path).sort()).toEqual(['big.bin', 'big2.txt']);
  });

  it('overwriting a file whose pre-image cannot be stored tells the model', async () => {
    const { workspace, session, tools } = await open();
    await writeFile(path.join(workspace, 'huge.log'), Buffer.alloc(9_000_000, 'a'));
    await session.beginTurn({ label: 'overwrite' });
    await tools.read.execute({ path: 'huge.log', limit: 1 }, { root: session.root });
    const result = (await tools.write.execute(
      { path: 'huge.log', content: 'small' },
      { root: session.root },
    )) as { output: string; warnings?: string[] };
    expect(result.warnings).toHaveLength(1);
    expect(result.output).toContain('NOT covered by rewind: huge.log (too-large');
  });

  it('paths the file system cannot take are tool failures, not crashes', async () => {
    const { workspace, session, tools } = await open();
    await mkdir(path.join(workspace, 'loop'));
    const { symlink } = await import('node:fs/promises');
    await symlink('a', path.join(workspace, 'loop', 'b'));
    await symlink('b', path.join(workspace, 'loop', 'a'));
    await session.beginTurn({ label: 'bad paths' });
    const long = await tools.write.execute(
      { path: `${'n'.repeat(300)}.txt`, content: 'x' },
      { root: session.root },
    );
    expect(long).toMatchObject({ ok: false, error: { code: 'PATH_INVALID' } });
    const looped = await tools.read.execute({ path: 'loop/a/x' }, { root: session.root });
    expect(looped.ok).toBe(false);
  });

  it('a damaged blob is written again by the next capture of the same content', async () => {
    const { workspace, session, tools } = await open();
    await writeFiles(workspace, { 'f.txt': 'precious\n' });
    await session.beginTurn({ label: 'one' });
    await session.capture(['f.txt']);
    await session.endTurn();
    const blobs = path.join(session.projectDir, 'blobs');
    const [prefix] = await readdir(blobs);
    const [name] = await readdir(path.join(blobs, prefix!));
    await writeFile(path.join(blobs, prefix!, name!), 'damaged!!\n');
    await session.beginTurn({ label: 'two' });
    await tools.read.execute({ path: 'f.txt' }, { root: session.root });
    await tools.write.execute({ path: 'f.txt', content: 'changed\n' }, { root: session.root });
    await session.endTurn();
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    expect(await read(workspace, 'f.txt')).toBe('precious\n');
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))('the read tool obeys denyRead like bash does', async () => {
    const base = await tempDir();
    const workspace = path.join(base, 'ws');
    await writeFiles(workspace, { 'secrets/key': 'KEY\n', 'ok.txt': 'ok\n' });
    const session = await createSession({
      workspace,
      home: path.join(base, 'home'),
      sandbox: { denyRead: [path.join(workspace, 'secrets')] },
    });
    const tools = createSessionTools(session);
    await session.beginTurn({ label: 'read' });
    expect(await tools.read.execute({ path: 'secrets/key' }, { root: session.root })).toMatchObject({
      ok: false,
      error: { code: 'SANDBOX_POLICY' },
    });
    expect((await tools.read.execute({ path: 'ok.txt' }, { root: session.root })).ok).toBe(true);
  });
});

describe('scan progress', () => {
  it('a full scan of a large tree reports progress every 5,000 entries', async () => {
    const workspace = await tempDir();
    const { execFileSync } = await import('node:child_process');
    execFileSync('bash', ['-c', 'mkdir big && cd big && seq -f "f%g" 1 10500 | xargs touch'], {
      cwd: workspace,
    });
    const seen: number[] = [];
    const session = await createSession({
      workspace,
      home: await tempDir(),
      shadowGit: false,
      onScanProgress: (entries) => seen.push(entries),
    });
    await session.beginTurn({ label: 'scan' });
    await session.staging.stage(session.root, { turn: 't1' });
    expect(seen).toEqual([5000, 10000]);
  });
});
