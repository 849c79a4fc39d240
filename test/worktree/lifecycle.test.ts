import { access, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { build } from 'rolldown';
import { dir } from 'tmp-promise';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectId } from '../../src/core/home.js';
import { createWorktreeManager } from '../../src/worktree/index.js';
import { type Fixture, makeFixture, recordingHost } from './helpers.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture({ 'README.md': 'hello\n', 'app.js': 'console.log(1);\n' });
});
afterEach(async () => {
  await fixture.cleanup();
});

async function gone(file: string): Promise<boolean> {
  return access(file).then(
    () => false,
    () => true,
  );
}

async function branches(fixture: Fixture): Promise<string> {
  return fixture.git(['branch', '--list', '--format=%(refname:short)']);
}

describe('discard', () => {
  it('leaves no branch, no folder and no `git worktree list` entry', async () => {
    const host = recordingHost(fixture);
    const manager = createWorktreeManager(host);
    const created = await manager.create({ name: 'gone' });
    await writeFile(path.join(created.path, 'x.txt'), 'x\n');
    const discarded = await manager.discard({ name: 'gone' });
    expect(discarded.branchCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(await gone(created.path)).toBe(true);
    expect(await branches(fixture)).toBe('main\n');
    expect(await fixture.git(['worktree', 'list', '--porcelain'])).not.toContain(created.path);
    expect(await manager.list()).toEqual([]);
    expect(host.activeRoots).toEqual([created.path, undefined]);
    expect(await gone(path.join(fixture.workspace, 'x.txt'))).toBe(true);
  });

  it('works after a merge too (force-deletes the never-integrated branch)', async () => {
    const manager = createWorktreeManager(recordingHost(fixture));
    const created = await manager.create({ name: 'after' });
    await writeFile(path.join(created.path, 'x.txt'), 'x\n');
    await manager.merge({ name: 'after' });
    await manager.discard({ name: 'after' });
    expect(await branches(fixture)).toBe('main\n');
    expect(await gone(created.path)).toBe(true);
    expect((await fixture.read('x.txt')).toString()).toBe('x\n');
    await expect(manager.discard({ name: 'after' })).rejects.toMatchObject({ code: 'WORKTREE_NOT_FOUND' });
  });
});

describe('several worktrees', () => {
  it('two worktrees at once: separate folders and branches, each merges its own changes', async () => {
    const host = recordingHost(fixture);
    const manager = createWorktreeManager(host);
    const first = await manager.create({ name: 'one' });
    const second = await manager.create({ name: 'two' });
    expect(manager.activeName()).toBe('two');
    await writeFile(path.join(first.path, 'one.txt'), '1\n');
    await writeFile(path.join(second.path, 'two.txt'), '2\n');
    await writeFile(path.join(second.path, 'app.js'), 'console.log(2);\n');
    const list = await manager.list();
    expect(
      list.map((info) => [
        info.name,
        info.branch,
        info.active,
        info.exists,
        info.ownerAlive,
        info.changedFiles,
      ]),
    ).toEqual([
      ['one', 'safeturn/session-1/one', false, true, true, ['one.txt']],
      ['two', 'safeturn/session-1/two', true, true, true, ['app.js', 'two.txt']],
    ]);
    expect((await manager.merge({ name: 'one' })).files).toEqual([{ path: 'one.txt', action: 'written' }]);
    expect((await manager.merge({ name: 'two' })).files).toEqual([
      { path: 'app.js', action: 'written' },
      { path: 'two.txt', action: 'written' },
    ]);
    await manager.discard({ name: 'one' });
    await manager.discard({ name: 'two' });
    expect(await branches(fixture)).toBe('main\n');
    expect((await fixture.read('app.js')).toString()).toBe('console.log(2);\n');
  });

  it('another live session cannot merge or discard a worktree it does not own', async () => {
    await createWorktreeManager(recordingHost(fixture, 'alpha')).create({ name: 'mine' });
    const other = createWorktreeManager(recordingHost(fixture, 'beta'));
    await expect(other.merge({ name: 'mine' })).rejects.toMatchObject({ code: 'WORKTREE_BUSY' });
    await expect(other.discard({ name: 'mine' })).rejects.toMatchObject({ code: 'WORKTREE_BUSY' });
  });
});

describe('cases', () => {
  it("case W1: create carries untracked and modified files; merge brings the agent's new untracked files back", async () => {
    await fixture.write('app.js', 'console.log("user edit");\n');
    await fixture.write('scratch/todo.md', '- user note\n');
    const manager = createWorktreeManager(recordingHost(fixture));
    const created = await manager.create({ name: 'w1' });
    expect(created.carried).toEqual(['app.js', 'scratch/todo.md']);
    expect((await readFile(path.join(created.path, 'app.js'))).toString()).toBe(
      'console.log("user edit");\n',
    );
    expect((await readFile(path.join(created.path, 'scratch/todo.md'))).toString()).toBe('- user note\n');
    await writeFile(path.join(created.path, 'scratch/todo.md'), '- user note\n- agent note\n');
    await writeFile(path.join(created.path, 'new-module.js'), 'export default 42;\n');
    const report = await manager.merge({ name: 'w1' });
    expect(report.files).toEqual([
      { path: 'new-module.js', action: 'written' },
      { path: 'scratch/todo.md', action: 'written' },
    ]);
    expect((await fixture.read('new-module.js')).toString()).toBe('export default 42;\n');
    expect((await fixture.read('scratch/todo.md')).toString()).toBe('- user note\n- agent note\n');
    expect((await fixture.read('app.js')).toString()).toBe('console.log("user edit");\n');
    expect(await fixture.git(['status', '--porcelain'])).toBe(' M app.js\n?? new-module.js\n?? scratch/\n');
  });

  describe('crash safety', () => {
    let bundle: { path: string; cleanup(): Promise<void> };
    beforeAll(async () => {
      const temp = await dir({ unsafeCleanup: true });
      const file = path.join(temp.path, 'create-then-hang.mjs');
      await build({
        input: path.join(import.meta.dirname, 'fixtures', 'create-then-hang.ts'),
        platform: 'node',
        write: true,
        logLevel: 'silent',
        output: { file, format: 'esm' },
        resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
      });
      bundle = { path: file, cleanup: () => temp.cleanup() };
    });
    afterAll(async () => {
      await bundle.cleanup();
    });

    async function crashedWorktree(name: string): Promise<string> {
      const child = execa('node', [bundle.path, fixture.workspace, fixture.home, 'dead-session', name], {
        reject: false,
      });
      const ready = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /ready (.+)\n/.exec(output);
          if (match?.[1]) resolve(match[1]);
        });
        child.on('exit', () => reject(new Error(`child exited early: ${output}`)));
      });
      child.kill('SIGKILL');
      const result = await child;
      expect(result.signal).toBe('SIGKILL');
      return ready;
    }

    it('case W2: a worktree whose process was SIGKILLed is found by doctor and can still be merged', async () => {
      const worktreePath = await crashedWorktree('w2');
      expect(worktreePath).toBe(path.join(fixture.home, 'worktrees', projectId(fixture.workspace), 'w2'));
      expect(await fixture.git(['worktree', 'list', '--porcelain'])).toMatch(/locked safeturn pid \d+\n/);

      const manager = createWorktreeManager(recordingHost(fixture, 'new-session'));
      const [info] = await manager.list();
      expect(info).toMatchObject({
        name: 'w2',
        state: 'active',
        ownerAlive: false,
        exists: true,
        changedFiles: ['agent.txt'],
      });
      const findings = await manager.doctor({ repair: true });
      expect(findings).toEqual([
        expect.objectContaining({ kind: 'owner-dead', name: 'w2', path: worktreePath, repaired: false }),
      ]);
      const report = await manager.merge({ name: 'w2' });
      expect(report.files).toEqual([{ path: 'agent.txt', action: 'written' }]);
      expect((await fixture.read('agent.txt')).toString()).toBe('written before the crash\n');
      await manager.discard({ name: 'w2' });
      expect(await branches(fixture)).toBe('main\n');
      expect(await manager.doctor()).toEqual([]);
    });

    it('case W2: a worktree whose process was SIGKILLed can be discarded', async () => {
      const worktreePath = await crashedWorktree('w2b');
      const manager = createWorktreeManager(recordingHost(fixture, 'new-session'));
      await manager.discard({ name: 'w2b' });
      expect(await gone(worktreePath)).toBe(true);
      expect(await branches(fixture)).toBe('main\n');
      expect(await fixture.git(['worktree', 'list', '--porcelain'])).not.toContain(worktreePath);
      expect(await gone(path.join(fixture.workspace, 'agent.txt'))).toBe(true);
    });
  });
});

describe('doctor', () => {
  it('finds registered-but-missing and present-but-unregistered worktrees and repairs them', async () => {
    const manager = createWorktreeManager(recordingHost(fixture));
    const missing = await manager.create({ name: 'missing' });
    const unregistered = await manager.create({ name: 'unregistered' });
    const stray = path.join(path.dirname(missing.path), 'stray');
    await rm(missing.path, { recursive: true, force: true });
    await rm(path.join(path.dirname(missing.path), '_registry', 'unregistered.json'));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(stray);

    const findings = await manager.doctor();
    expect(findings.map((finding) => [finding.kind, finding.name, finding.branch, finding.repaired])).toEqual(
      [
        ['missing', 'missing', 'safeturn/session-1/missing', false],
        ['unregistered', 'stray', undefined, false],
        ['unregistered', 'unregistered', 'safeturn/session-1/unregistered', false],
      ],
    );
    const repaired = await manager.doctor({ repair: true });
    expect(repaired.map((finding) => [finding.kind, finding.name, finding.repaired])).toEqual([
      ['missing', 'missing', true],
      ['unregistered', 'stray', true],
      ['unregistered', 'unregistered', true],
    ]);
    expect(await manager.doctor()).toEqual([]);
    expect(await branches(fixture)).toBe('main\n');
    expect(await gone(unregistered.path)).toBe(true);
    expect(await gone(stray)).toBe(true);
    expect((await fixture.git(['worktree', 'list', '--porcelain'])).match(/^worktree /gm)).toHaveLength(1);
  });

  it('finds an interrupted creation (registered as creating, owner dead) and removes it', async () => {
    const manager = createWorktreeManager(recordingHost(fixture));
    const created = await manager.create({ name: 'half' });
    const registryFile = path.join(path.dirname(created.path), '_registry', 'half.json');
    const deadPid = (await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout;
    const entry = JSON.parse(await readFile(registryFile, 'utf8')) as Record<string, unknown>;
    await writeFile(
      registryFile,
      JSON.stringify({
        ...entry,
        state: 'creating',
        owner: { ...(entry.owner as object), pid: Number(deadPid) },
      }),
    );
    await expect(manager.merge({ name: 'half' })).rejects.toMatchObject({ code: 'WORKTREE_INCOMPLETE' });
    const [finding] = await manager.doctor({ repair: true });
    expect(finding).toMatchObject({ kind: 'incomplete', name: 'half', repaired: true });
    expect(await gone(created.path)).toBe(true);
    expect(await branches(fixture)).toBe('main\n');
    expect(await manager.list()).toEqual([]);
  });
});
