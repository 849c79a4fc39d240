import { chmod, lstat, mkdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, exists, git, read, setup, snapshot, tempDir, turn, writeFiles } from '../helpers.js';

describe('rewind', () => {
  it('case C1: a file the agent created is removed, others untouched', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.txt': 'alpha\n' });
    const before = await stat(path.join(workspace, 'a.txt'));
    await turn(session, 'write Foo', async () => {
      const result = await tools.write.execute({ path: 'Foo.md', content: '# Foo\n' }, context());
      expect(result.ok).toBe(true);
    });
    expect(await read(workspace, 'Foo.md')).toBe('# Foo\n');
    const report = await session.rewind(1);
    expect(report.deleted).toEqual(['Foo.md']);
    expect(await exists(workspace, 'Foo.md')).toBe(false);
    const after = await stat(path.join(workspace, 'a.txt'));
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(await read(workspace, 'a.txt')).toBe('alpha\n');
  });

  it('case C2: files only read are never deleted, even over the size cap', async () => {
    const { workspace, session, tools, context } = await setup({ sizeCapBytes: 8 * 1024 * 1024 });
    const run1 = Buffer.alloc(5 * 1024 * 1024, 'r');
    const big = Buffer.alloc(20 * 1024 * 1024, 7);
    await writeFiles(workspace, {
      'output/run1.jsonl': run1,
      'output/big.bin': big,
      'src/a.ts': 'export const a = 1;\n',
    });
    await turn(session, 'edit a', async () => {
      await tools.read.execute({ path: 'output/run1.jsonl' }, context());
      await tools.read.execute({ path: 'output/big.bin' }, context());
      await tools.read.execute({ path: 'src/a.ts' }, context());
      const edit = await tools.edit.execute(
        { path: 'src/a.ts', old_string: '= 1', new_string: '= 2' },
        context(),
      );
      expect(edit.ok).toBe(true);
    });
    const report = await session.rewind(1);
    expect(report.restored).toEqual(['src/a.ts']);
    expect(report.deleted).toEqual([]);
    expect((await readFile(path.join(workspace, 'output/run1.jsonl'))).equals(run1)).toBe(true);
    expect((await readFile(path.join(workspace, 'output/big.bin'))).equals(big)).toBe(true);
    expect(await read(workspace, 'src/a.ts')).toBe('export const a = 1;\n');
  });

  it('case C3 (no shell): an uncommitted ignore rule and the ignored file survive', async () => {
    const { workspace, session, tools, context } = await setup();
    git(workspace, 'init', '-q');
    await writeFiles(workspace, { '.gitignore': 'node_modules/\n', 'app.js': 'let x = 1;\n' });
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
    await writeFile(path.join(workspace, '.gitignore'), 'node_modules/\nsecrets/\n');
    await writeFiles(workspace, { 'secrets/key.pem': 'KEY\n' });
    const snap = await snapshot(workspace);
    await turn(session, 'edit', async () => {
      await tools.read.execute({ path: '.gitignore' }, context());
      await tools.read.execute({ path: 'app.js' }, context());
      await tools.write.execute({ path: '.gitignore', content: 'dist/\n' }, context());
      await tools.write.execute({ path: 'app.js', content: 'let x = 2;\n' }, context());
    });
    await session.rewind(1);
    expect(await snapshot(workspace)).toEqual(snap);
  });

  it('case C6: a hand edit after the agent is a conflict; force writes v1 and redo returns v3', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'f.ts': 'v1\n' });
    await turn(session, 'to v2', async () => {
      await tools.read.execute({ path: 'f.ts' }, context());
      await tools.write.execute({ path: 'f.ts', content: 'v2\n' }, context());
    });
    await writeFile(path.join(workspace, 'f.ts'), 'v3\n');
    const error = await session.rewind(1).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'REWIND_CONFLICT', data: { paths: ['f.ts'] } });
    expect(await read(workspace, 'f.ts')).toBe('v3\n');
    const forced = await session.rewind(1, { force: true });
    expect(forced.overwritten).toEqual(['f.ts']);
    expect(await read(workspace, 'f.ts')).toBe('v1\n');
    const redo = await session.redo();
    expect(redo.restored).toEqual(['f.ts']);
    expect(await read(workspace, 'f.ts')).toBe('v3\n');
  });

  it('case C7: a turn that only read writes nothing', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'x.c': 'int main(){}\n' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
    await writeFile(path.join(workspace, 'x.c'), 'int main(){ return 1; }\n');
    const before = await stat(path.join(workspace, 'x.c'));
    await turn(session, 'look', async () => {
      await tools.read.execute({ path: 'x.c' }, context());
    });
    const report = await session.rewind(1);
    expect(report.restored).toEqual([]);
    expect(report.deleted).toEqual([]);
    const after = await stat(path.join(workspace, 'x.c'));
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
    expect(await read(workspace, 'x.c')).toBe('int main(){ return 1; }\n');
  });

  it('case C8: only files that differ are written on rewind and redo', async () => {
    const { workspace, session, tools, context } = await setup();
    const files: Record<string, string> = {};
    for (let index = 0; index < 200; index += 1) files[`f${index}.txt`] = `file ${index}\n`;
    await writeFiles(workspace, files);
    const statsBefore = new Map<string, { mtimeMs: number; ino: number }>();
    for (const name of Object.keys(files)) statsBefore.set(name, await stat(path.join(workspace, name)));
    await turn(session, 'edit two', async () => {
      for (const name of ['f3.txt', 'f150.txt']) {
        await tools.read.execute({ path: name }, context());
        await tools.edit.execute({ path: name, old_string: 'file', new_string: 'FILE' }, context());
      }
    });
    const afterTurn = new Map<string, { mtimeMs: number; ino: number }>();
    for (const name of Object.keys(files)) afterTurn.set(name, await stat(path.join(workspace, name)));
    await session.rewind(1);
    await session.redo();
    let changed = 0;
    for (const name of Object.keys(files)) {
      const now = await stat(path.join(workspace, name));
      const was = afterTurn.get(name)!;
      if (now.mtimeMs !== was.mtimeMs || now.ino !== was.ino) changed += 1;
      else expect(now.ino).toBe(statsBefore.get(name)!.ino);
    }
    expect(changed).toBe(2);
    expect(await read(workspace, 'f3.txt')).toBe('FILE 3\n');
  });

  it('case C9: unusual names are restored byte-exact and created ones deleted', async () => {
    const { workspace, session, tools, context } = await setup();
    const names = [
      '报告.txt',
      ' leading-space.txt',
      'a b.txt',
      'emoji-😀.md',
      'tab\tname.txt',
      'new\nline.txt',
    ];
    await writeFiles(workspace, Object.fromEntries(names.map((name) => [name, `original ${name}\n`])));
    const snap = await snapshot(workspace);
    await turn(session, 'unusual', async () => {
      for (const name of names) {
        await tools.read.execute({ path: name }, context());
        const edited = await tools.write.execute({ path: name, content: 'changed\n' }, context());
        expect(edited.ok).toBe(true);
        const created = await tools.write.execute({ path: `new-${name}`, content: 'new\n' }, context());
        expect(created.ok).toBe(true);
      }
    });
    const report = await session.rewind(1);
    expect(report.deleted.sort()).toEqual(names.map((name) => `new-${name}`).sort());
    expect(await snapshot(workspace)).toEqual(snap);
  });

  it('case C11: a partial failure is reported exactly, the rest restored', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'locked/b.txt': 'b1\n' });
    await turn(session, 'two files', async () => {
      await tools.write.execute({ path: 'new1.txt', content: 'n\n' }, context());
      await tools.read.execute({ path: 'locked/b.txt' }, context());
      await tools.write.execute({ path: 'locked/b.txt', content: 'b2\n' }, context());
    });
    // Root ignores file modes, so make locked/ unwritable the way a read-only mount would: a
    // regular file where the restore needs to create its temp file's directory entry is not
    // possible; instead replace locked/b.txt's parent with a read-only bind via a directory swap.
    const { execFileSync } = await import('node:child_process');
    let mounted = false;
    try {
      execFileSync('mount', [
        '--bind',
        '-o',
        'ro',
        path.join(workspace, 'locked'),
        path.join(workspace, 'locked'),
      ]);
      execFileSync('mount', ['-o', 'remount,bind,ro', path.join(workspace, 'locked')]);
      mounted = true;
    } catch {
      mounted = false;
    }
    try {
      if (!mounted) await chmod(path.join(workspace, 'locked'), 0o555);
      const report = await session.rewind(1);
      expect(report.deleted).toEqual(['new1.txt']);
      if (mounted || process.getuid?.() !== 0) {
        expect(report.failed.map((failure) => failure.path)).toEqual(['locked/b.txt']);
        expect(report.restored).toEqual([]);
        expect(await read(workspace, 'locked/b.txt')).toBe('b2\n');
      }
      expect(await exists(workspace, 'new1.txt')).toBe(false);
      if (mounted) {
        // An incomplete rewind keeps its turn as a rollback point: retry once the cause is fixed.
        expect(report.complete).toBe(false);
        expect(session.rollbackPoints().map((point) => point.turnId)).toEqual(['t1']);
        execFileSync('umount', [path.join(workspace, 'locked')]);
        mounted = false;
        const retry = await session.rewind(1);
        expect(retry).toMatchObject({ complete: true, restored: ['locked/b.txt'], failed: [] });
        expect(await read(workspace, 'locked/b.txt')).toBe('b1\n');
      }
    } finally {
      if (mounted) execFileSync('umount', [path.join(workspace, 'locked')]);
      await chmod(path.join(workspace, 'locked'), 0o755);
    }
  });

  it('case C13: the same file over several turns', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { f1: '1a\n', f2: '2a\n' });
    await turn(session, 't1', async () => {
      await tools.read.execute({ path: 'f1' }, context());
      await tools.write.execute({ path: 'f1', content: '1b\n' }, context());
    });
    const t2 = await turn(session, 't2', async () => {
      await tools.read.execute({ path: 'f2' }, context());
      await tools.write.execute({ path: 'f2', content: '2b\n' }, context());
    });
    await turn(session, 't3', async () => {
      await tools.write.execute({ path: 'f1', content: '1c\n' }, context());
    });
    const report = await session.rewind(t2);
    expect(report.turns).toEqual(['t2', 't3']);
    expect(await read(workspace, 'f1')).toBe('1b\n');
    expect(await read(workspace, 'f2')).toBe('2a\n');
    expect(session.rollbackPoints().map((point) => point.turnId)).toEqual(['t1']);
  });

  it('case C14: the executable bit is restored both ways', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'run.sh': '#!/bin/sh\necho 1\n', 'build.sh': '#!/bin/sh\n' });
    await chmod(path.join(workspace, 'run.sh'), 0o755);
    await chmod(path.join(workspace, 'build.sh'), 0o644);
    await turn(session, 'edit run', async () => {
      await tools.read.execute({ path: 'run.sh' }, context());
      await tools.edit.execute({ path: 'run.sh', old_string: 'echo 1', new_string: 'echo 2' }, context());
    });
    expect((await stat(path.join(workspace, 'run.sh'))).mode & 0o777).toBe(0o755);
    await session.rewind(1);
    expect(await read(workspace, 'run.sh')).toBe('#!/bin/sh\necho 1\n');
    expect((await stat(path.join(workspace, 'run.sh'))).mode & 0o777).toBe(0o755);
    await turn(session, 'chmod', async () => {
      await session.capture(['build.sh']);
      await chmod(path.join(workspace, 'build.sh'), 0o755);
      await session.recordWritten(['build.sh']);
    });
    await session.rewind(1);
    expect((await stat(path.join(workspace, 'build.sh'))).mode & 0o777).toBe(0o644);
  });

  it('case C15: symlinks are captured as links, never followed', async () => {
    const base = await tempDir();
    const fakeHome = path.join(base, 'home');
    await mkdir(path.join(fakeHome, '.ssh'), { recursive: true });
    await writeFile(path.join(fakeHome, '.ssh/id_rsa'), 'PRIVATE KEY\n');
    await mkdir(path.join(base, 'outside'));
    await writeFile(path.join(base, 'outside/file'), 'outside\n');
    await mkdir(path.join(base, 'ws'));
    const { workspace, session, tools, context } = await setup({ workspace: path.join(base, 'ws') });
    await symlink('../outside/file', path.join(workspace, 'cfg'));
    await turn(session, 'links', async () => {
      await session.capture(['link', 'cfg'].map((name) => name));
      await symlink(path.join(fakeHome, '.ssh/id_rsa'), path.join(workspace, 'link'));
      await import('node:fs/promises').then((fs) => fs.unlink(path.join(workspace, 'cfg')));
      await writeFile(path.join(workspace, 'cfg'), 'now a file\n');
      await session.recordWritten(['link', 'cfg']);
      // The agent's own tools refuse to follow a link out of the workspace.
      const refused = await tools.read.execute({ path: 'link' }, context());
      expect(refused).toMatchObject({ ok: false, error: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    });
    const { readdir } = await import('node:fs/promises');
    const blobNames = (
      await readdir(path.join(session.projectDir, 'blobs'), { recursive: true }).catch(() => [])
    ).join('\n');
    const { createHash } = await import('node:crypto');
    expect(blobNames).not.toContain(createHash('sha256').update('PRIVATE KEY\n').digest('hex'));
    expect(blobNames).not.toContain(createHash('sha256').update('outside\n').digest('hex'));
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    expect(await exists(workspace, 'link')).toBe(false);
    expect((await lstat(path.join(workspace, 'cfg'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(workspace, 'cfg'))).toBe('../outside/file');
    expect(await readFile(path.join(base, 'outside/file'), 'utf8')).toBe('outside\n');
    // A path whose parent directory is a symlink out of the workspace is refused.
    await symlink(path.join(base, 'outside'), path.join(workspace, 'out'));
    await session.beginTurn({ label: 'escape' });
    const escaped = await tools.write.execute({ path: 'out/new.txt', content: 'x' }, context());
    expect(escaped).toMatchObject({ ok: false, error: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    await expect(session.capture(['out/new.txt'])).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await session.endTurn();
    expect(await exists(base, 'outside/new.txt')).toBe(false);
  });

  it('case C16: created directories are removed when empty; a pre-existing empty one survives', async () => {
    const { workspace, session, tools, context } = await setup();
    await mkdir(path.join(workspace, 'logs'));
    await turn(session, 'mod', async () => {
      const result = await tools.write.execute(
        { path: 'src/new/mod.ts', content: 'export {};\n' },
        context(),
      );
      expect(result.ok).toBe(true);
    });
    const report = await session.rewind(1);
    expect(report.removedDirectories).toEqual(['src/new', 'src']);
    expect(await exists(workspace, 'src')).toBe(false);
    expect(await exists(workspace, 'logs')).toBe(true);
    await turn(session, 'nothing', async () => {});
    const empty = await session.rewind(1);
    expect(empty).toMatchObject({ restored: [], deleted: [], failed: [] });
  });

  it('rule 1: rewinding turn N uses the oldest pre-image and undoes later turns', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.txt': 'A0' });
    for (const value of ['A1', 'A2', 'A3']) {
      await turn(session, value, async () => {
        await tools.read.execute({ path: 'a.txt' }, context());
        await tools.write.execute({ path: 'a.txt', content: value }, context());
        await tools.write.execute({ path: 'a.txt', content: `${value}-again` }, context());
      });
    }
    expect(session.rollbackPoints().map((point) => point.number)).toEqual([1, 2, 3]);
    await session.rewind(2);
    expect(await read(workspace, 'a.txt')).toBe('A1-again');
    await session.rewind('t1');
    expect(await read(workspace, 'a.txt')).toBe('A0');
  });

  it('rule 5 and redo: redo is refused after a new turn', async () => {
    const { workspace, session, tools, context } = await setup();
    await turn(session, 'create', async () => {
      await tools.write.execute({ path: 'n.txt', content: 'n' }, context());
    });
    await session.rewind(1);
    await turn(session, 'other', async () => {});
    await expect(session.redo()).rejects.toMatchObject({ code: 'REDO_UNAVAILABLE' });
    expect(await exists(workspace, 'n.txt')).toBe(false);
  });

  it('rule 7: the user .git is never written', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.txt': 'a\n' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
    const gitBefore = await snapshot(path.join(workspace, '.git'));
    await turn(session, 'edit', async () => {
      await tools.read.execute({ path: 'a.txt' }, context());
      await tools.write.execute({ path: 'a.txt', content: 'b\n' }, context());
    });
    await session.rewind(1);
    await session.redo();
    expect(await snapshot(path.join(workspace, '.git'))).toEqual(gitBefore);
  });

  it('a resumed session can rewind what an earlier process did', async () => {
    const { workspace, home, session, tools, context } = await setup({ sessionId: 'resume-me' });
    await writeFiles(workspace, { 'a.txt': 'one' });
    await turn(session, 'first', async () => {
      await tools.read.execute({ path: 'a.txt' }, context());
      await tools.write.execute({ path: 'a.txt', content: 'two' }, context());
    });
    await session.close();
    const resumed = await createSession({ workspace, home, sessionId: 'resume-me' });
    expect(resumed.rollbackPoints()).toMatchObject([
      { number: 1, turnId: 't1', label: 'first', files: ['a.txt'] },
    ]);
    await resumed.rewind(1);
    expect(await read(workspace, 'a.txt')).toBe('one');
  });

  it('retention keeps the last N turns as rollback points', async () => {
    const { session } = await setup({ maxTurns: 3 });
    for (let index = 0; index < 5; index += 1) await turn(session, `turn ${index}`, async () => {});
    expect(session.rollbackPoints().map((point) => point.turnId)).toEqual(['t5', 't4', 't3']);
    await expect(session.rewind('t1')).rejects.toMatchObject({ code: 'NO_SUCH_TURN' });
  });

  it('labels are cut to 120 characters', async () => {
    const { session } = await setup();
    await turn(session, 'x'.repeat(300), async () => {});
    expect(session.rollbackPoints()[0]!.label).toHaveLength(120);
  });
});
