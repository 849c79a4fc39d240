import { execFileSync } from 'node:child_process';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoverageNote } from '../../../src/checkpoint/scan/coverage.js';
import { exists, git, read, setup, snapshot, writeFiles } from '../../helpers.js';

async function project(withGit: boolean, watchFiles = true) {
  const env = await setup({ watchFiles });
  await writeFiles(env.workspace, {
    'cfg.ini': 'mode=a\nname=alpha\n',
    'src/main.c': 'int main() { return 0; }\n',
    'tracked.txt': 'tracked\n',
    '.gitignore': '.env\nnode_modules/\n',
    '.env': 'SECRET=1\n',
    'A/foo.txt': 'foo\n',
    'A/bar.txt': 'bar\n',
    'build.sh': '#!/bin/sh\necho build\n',
    'node_modules/pkg/index.js': 'module.exports = 1;\n',
  });
  if (withGit) {
    git(env.workspace, 'init', '-q');
    git(env.workspace, 'add', '.');
    git(env.workspace, 'commit', '-qm', 'init');
  }
  const bash = async (command: string) => {
    const result = (await env.tools.bash.execute({ command }, env.context())) as {
      ok: boolean;
      data?: { exitCode?: number };
      coverage?: CoverageNote;
      output?: string;
    };
    return result;
  };
  return { ...env, bash };
}

for (const [withGit, watchFiles] of [
  [true, true],
  [false, true],
  [false, false],
] as const) {
  describe(`bash coverage (${withGit ? 'git' : 'non-git'} workspace, ${watchFiles ? 'with' : 'without'} file watches)`, () => {
    it('sed -i, rm of tracked and ignored files, a generated tree, mv, chmod +x: all rewind byte for byte', async () => {
      const { workspace, session, bash } = await project(withGit, watchFiles);
      const before = await snapshot(workspace);
      await session.beginTurn({ label: 'shell work' });
      expect((await bash("sed -i 's/a/b/' cfg.ini")).data?.exitCode).toBe(0);
      await bash('rm tracked.txt .env');
      await bash(
        'mkdir -p gen/a/b/c && for i in 1 2 3; do echo "file $i" > gen/a/b/c/f$i.txt; done && echo top > gen/top.txt',
      );
      await bash('mkdir B && mv A/*.txt B/');
      const chmodResult = await bash('chmod +x build.sh');
      expect(chmodResult.coverage?.modified).toEqual(['build.sh']);
      await session.endTurn();
      expect(await read(workspace, 'cfg.ini')).toBe('mode=b\nnbme=alpha\n');
      const coverage = session.coverage();
      expect(coverage.deleted.sort()).toEqual(['.env', 'A/bar.txt', 'A/foo.txt', 'tracked.txt']);
      expect(coverage.created.sort()).toEqual([
        'B/bar.txt',
        'B/foo.txt',
        'gen/a/b/c/f1.txt',
        'gen/a/b/c/f2.txt',
        'gen/a/b/c/f3.txt',
        'gen/top.txt',
      ]);
      expect(coverage.uncovered).toEqual([]);
      const report = await session.rewind(1);
      expect(report.failed).toEqual([]);
      expect(await snapshot(workspace)).toEqual(before);
    });

    it('a write inside node_modules is reported as uncovered; the rest rewinds', async () => {
      const { workspace, session, bash } = await project(withGit, watchFiles);
      await session.beginTurn({ label: 'npm-ish' });
      const result = await bash('echo "x" > node_modules/new.js && echo changed > cfg.ini');
      expect(result.coverage?.uncovered).toMatchObject([
        { path: 'node_modules', reason: 'skipped-directory' },
      ]);
      expect(result.output).toContain('NOT covered by rewind: node_modules');
      await session.endTurn();
      expect(session.coverage().uncovered.map((item) => item.path)).toEqual(['node_modules']);
      await session.rewind(1);
      expect(await read(workspace, 'cfg.ini')).toBe('mode=a\nname=alpha\n');
      expect(await read(workspace, 'node_modules/new.js')).toBe('x\n');
    });

    it('a failing command that changed files before failing rewinds', async () => {
      const { workspace, session, bash } = await project(withGit, watchFiles);
      const before = await snapshot(workspace);
      await session.beginTurn({ label: 'fails' });
      const result = await bash('echo partial > out.txt; rm src/main.c; exit 3');
      expect(result.data?.exitCode).toBe(3);
      expect(result.coverage).toMatchObject({ created: ['out.txt'], deleted: ['src/main.c'] });
      await session.endTurn();
      await session.rewind(1);
      expect(await snapshot(workspace)).toEqual(before);
    });
  });
}

describe('bash cases', () => {
  it('case C4: a file written in turn 1 and removed by shell in turn 2 comes back', async () => {
    const { workspace, session, tools, context, bash } = await project(false);
    await session.beginTurn({ label: 'write notes' });
    await tools.write.execute({ path: 'notes.md', content: '# notes v1\n' }, context());
    await session.endTurn();
    await session.beginTurn({ label: 'remove notes' });
    await bash('rm notes.md');
    await session.endTurn();
    await session.rewind('t2');
    expect(await read(workspace, 'notes.md')).toBe('# notes v1\n');
  });

  it('case C5: a move across folders is undone, B/ removed, A/ kept', async () => {
    const { workspace, session, bash } = await project(false);
    await session.beginTurn({ label: 'move' });
    await bash('mkdir B && mv A/*.txt B/');
    await session.endTurn();
    const report = await session.rewind(1);
    expect(await read(workspace, 'A/foo.txt')).toBe('foo\n');
    expect(await read(workspace, 'A/bar.txt')).toBe('bar\n');
    expect(await exists(workspace, 'B')).toBe(false);
    expect(report.removedDirectories).toEqual(['B']);
  });

  it('case C10: a file over the size cap appended by shell is never deleted and the report says why', async () => {
    const { workspace, session, bash } = await project(false);
    const big = Buffer.alloc(20 * 1024 * 1024, 'd');
    await writeFile(path.join(workspace, 'dataset.csv'), big);
    await session.beginTurn({ label: 'append' });
    const result = await bash('echo "more,rows" >> dataset.csv');
    expect(result.coverage?.uncovered).toMatchObject([{ path: 'dataset.csv', reason: 'too-large' }]);
    await session.endTurn();
    const report = await session.rewind(1);
    expect(report.skipped).toEqual([{ path: 'dataset.csv', reason: 'too-large' }]);
    expect(report.deleted).toEqual([]);
    expect((await stat(path.join(workspace, 'dataset.csv'))).size).toBe(big.length + 10);
  });

  it('case C17: a heredoc and sed -i are captured and listed in the rollback point', async () => {
    const { workspace, session, bash } = await project(true);
    await session.beginTurn({ label: 'generate' });
    await bash("cat > gen.py <<'EOF'\nprint('generated')\nEOF\nsed -i 's/a/b/' cfg.ini");
    await session.endTurn();
    expect(session.rollbackPoints()[0]!.files).toEqual(['cfg.ini', 'gen.py']);
    await session.rewind(1);
    expect(await exists(workspace, 'gen.py')).toBe(false);
    expect(await read(workspace, 'cfg.ini')).toBe('mode=a\nname=alpha\n');
  });

  it('case C19: scans never descend into node_modules; the second scan hashes nothing', async () => {
    const { workspace, session, bash } = await project(false);
    for (let index = 0; index < 2000; index += 1)
      await writeFiles(workspace, { [`src/file${index}.ts`]: `export const v${index} = ${index};\n` });
    execFileSync(
      'bash',
      [
        '-c',
        'cd node_modules && for d in $(seq 0 199); do mkdir p$d && (cd p$d && touch $(seq -f "f%g.js" 0 999)); done',
      ],
      { cwd: workspace },
    );
    await session.beginTurn({ label: 'scan' });
    const staged = await session.staging.stage(session.root);
    expect(staged.fullScan).toBe(true);
    expect(staged.coveredPaths).toBe(2000 + 8);
    const cache = JSON.parse(await readFile(path.join(session.projectDir, 'stat-cache.json'), 'utf8'));
    expect(Object.keys(cache.entries).some((key) => key.startsWith('node_modules/'))).toBe(false);
    await bash('true');
    const second = await session.staging.stage(session.root);
    expect(second.hashedFiles).toBe(0);
    expect(second.fullScan).toBe(false);
    expect(second.coveredPaths).toBe(2000 + 8);
    await session.endTurn();
  }, 120_000);

  it('chmod is captured and rewinds the mode', async () => {
    const { workspace, session, bash } = await project(false);
    await chmod(path.join(workspace, 'build.sh'), 0o644);
    await session.beginTurn({ label: 'chmod' });
    await bash('chmod 755 build.sh');
    await session.endTurn();
    await session.rewind(1);
    expect((await stat(path.join(workspace, 'build.sh'))).mode & 0o777).toBe(0o644);
  });
});

describe('the bash tool', () => {
  it('kills a hanging command and its whole process group on timeout', async () => {
    const { session, tools, context, workspace } = await setup();
    await session.beginTurn({ label: 'hang' });
    const started = Date.now();
    const result = (await tools.bash.execute(
      { command: '(sleep 30; echo late > late.txt) & sleep 30', timeout_ms: 300 },
      context(),
    )) as {
      ok: boolean;
      data: { timedOut: boolean; signal?: string };
    };
    expect(result.data.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await exists(workspace, 'late.txt')).toBe(false);
  });

  it('honours the AbortSignal, caps output in the middle, passes exit codes and signals', async () => {
    const { session, tools, context } = await setup();
    await session.beginTurn({ label: 'misc' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = (await tools.bash.execute(
      { command: 'sleep 20' },
      { ...context(), abortSignal: controller.signal },
    )) as { output: string };
    expect(aborted.output).toContain('aborted');
    const long = (await tools.bash.execute({ command: 'seq 1 100000' }, context())) as {
      output: string;
      data: { stdout: string };
    };
    expect(long.data.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(long.data.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(long.data.stdout).toMatch(/\[\.\.\. \d+ characters \(\d+ lines\) elided \.\.\.\]/);
    const exit = (await tools.bash.execute({ command: 'exit 42' }, context())) as {
      data: { exitCode: number };
    };
    expect(exit.data.exitCode).toBe(42);
    const killed = (await tools.bash.execute({ command: 'kill -TERM $$' }, context())) as {
      data: { signal: string };
    };
    expect(killed.data.signal).toBe('SIGTERM');
  });
});

describe('bash staging between calls (file watches)', () => {
  it('directory renames, rm -rf, a file replaced by a directory, and edits between calls all rewind', async () => {
    const { workspace, session, bash } = await project(false);
    await writeFiles(workspace, {
      'lib/x/one.txt': '1\n',
      'lib/x/two.txt': '2\n',
      'gone/deep/a.txt': 'a\n',
      swap: 'file\n',
    });
    const before = await snapshot(workspace);
    await session.beginTurn({ label: 'structure' });
    await bash('true');
    await bash('mv lib/x lib/y');
    await writeFile(path.join(workspace, 'cfg.ini'), 'edited by the user between calls\n');
    await bash('rm -rf gone && rm swap && mkdir swap && echo inner > swap/inner.txt');
    const last = await bash("sed -i 's/user/someone/' cfg.ini && echo new > lib/y/three.txt");
    expect(last.coverage).toMatchObject({ created: ['lib/y/three.txt'], modified: ['cfg.ini'] });
    await session.endTurn();
    expect(session.coverage().deleted.sort()).toEqual([
      'gone/deep/a.txt',
      'lib/x/one.txt',
      'lib/x/two.txt',
      'swap',
    ]);
    await session.rewind(1);
    const after = await snapshot(workspace);
    // The user's edit between calls was the pre-image of cfg.ini for this turn (first capture wins).
    expect(await read(workspace, 'cfg.ini')).toBe('edited by the user between calls\n');
    after.delete('cfg.ini');
    before.delete('cfg.ini');
    expect(after).toEqual(before);
  });

  it('.safeturnignore paths are not captured and are named in the coverage note', async () => {
    const { workspace, session, bash } = await project(false);
    await writeFiles(workspace, { '.safeturnignore': 'logs/\n*.tmp\n', 'logs/old.log': 'old\n' });
    await session.beginTurn({ label: 'ignored' });
    const result = await bash('echo x > scratch.tmp && echo y >> logs/old.log && echo z > kept.txt');
    expect(result.coverage?.created).toEqual(['kept.txt']);
    expect(result.coverage?.uncovered).toMatchObject([{ path: 'scratch.tmp', reason: 'safeturnignore' }]);
    await session.endTurn();
    await session.rewind(1);
    expect(await exists(workspace, 'kept.txt')).toBe(false);
    expect(await read(workspace, 'scratch.tmp')).toBe('x\n');
  });
});
