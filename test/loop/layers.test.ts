import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionTools } from '../../src/loop/session-tools.js';
import { createSession, git, read, snapshot, tempDir, writeFiles } from '../helpers.js';

const hasBwrap = existsSync('/usr/bin/bwrap');

async function sandboxed(policy: Record<string, unknown> | boolean = true) {
  const base = await tempDir();
  const workspace = path.join(base, 'ws');
  await mkdir(workspace);
  const session = await createSession({ workspace, home: path.join(base, 'home'), sandbox: policy as never });
  const tools = createSessionTools(session);
  return { base, workspace: session.workspace, session, tools, context: () => ({ root: session.root }) };
}

describe('the session composes the layers', () => {
  it.skipIf(!hasBwrap)(
    'bash runs under the sandbox; a write outside fails and the host is unchanged',
    async () => {
      const { base, session, tools, context, workspace } = await sandboxed();
      await session.beginTurn({ label: 'sandboxed' });
      const result = (await tools.bash.execute(
        { command: `echo inside > in.txt; echo outside > ${base}/out.txt; echo done` },
        context(),
      )) as {
        ok: boolean;
        data: { exitCode: number; stdout: string; sandbox?: unknown };
      };
      expect(result.ok).toBe(true);
      expect(result.data.stdout).toBe('done\n');
      expect(result.data.sandbox).toBeDefined();
      expect(await read(workspace, 'in.txt')).toBe('inside\n');
      expect(existsSync(path.join(base, 'out.txt'))).toBe(false);
      await session.endTurn();
      await session.rewind(1);
      expect(existsSync(path.join(workspace, 'in.txt'))).toBe(false);
    },
  );

  it.skipIf(!hasBwrap)('the write tools obey the same policy: a protected .git path is refused', async () => {
    const { session, tools, context, workspace } = await sandboxed();
    git(workspace, 'init', '-q');
    await session.beginTurn({ label: 'hook' });
    const refused = await tools.write.execute(
      { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ncurl evil\n' },
      context(),
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'SANDBOX_POLICY' } });
    expect(existsSync(path.join(workspace, '.git/hooks/pre-commit'))).toBe(false);
    expect((await tools.write.execute({ path: 'ok.txt', content: 'fine' }, context())).ok).toBe(true);
  });

  it('an invalid sandbox config file is an error, never replaced by defaults', async () => {
    const base = await tempDir();
    await writeFile(path.join(base, 'safeturn.config.json'), JSON.stringify({ sandbox: { network: 'yes' } }));
    await expect(createSession({ workspace: base, home: await tempDir() })).rejects.toMatchObject({
      code: 'SANDBOX_POLICY',
    });
  });

  it('without a policy, bash runs unsandboxed and write tools are not policed', async () => {
    const workspace = await tempDir();
    const session = await createSession({ workspace, home: await tempDir() });
    expect(session.sandbox).toBeUndefined();
  });

  it('worktree tools through the session: create, work inside, merge, then one rewind restores the pre-merge state', async () => {
    const workspace = await tempDir();
    await writeFiles(workspace, { 'app.js': 'let a = 1;\n', 'README.md': '# app\n' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'init');
    await writeFile(path.join(workspace, 'README.md'), '# app (user draft)\n');
    const session = await createSession({ workspace, home: await tempDir() });
    const tools = createSessionTools(session);
    const context = () => ({ root: session.root });
    const before = await snapshot(workspace);
    await session.beginTurn({ label: 'try in a worktree' });
    const created = await tools.worktree_create.execute({ name: 'try' }, context());
    expect(created.ok).toBe(true);
    expect(session.root).not.toBe(session.workspace);
    await tools.read.execute({ path: 'app.js' }, context());
    await tools.write.execute({ path: 'app.js', content: 'let a = 2;\n' }, context());
    await tools.bash.execute({ command: 'echo new > added.txt' }, context());
    expect(await read(workspace, 'app.js')).toBe('let a = 1;\n');
    const merged = await tools.worktree_merge.execute({ name: 'try' }, context());
    expect(merged.ok).toBe(true);
    expect(session.root).toBe(session.workspace);
    expect(await read(workspace, 'app.js')).toBe('let a = 2;\n');
    expect(await read(workspace, 'added.txt')).toBe('new\n');
    expect(await read(workspace, 'README.md')).toBe('# app (user draft)\n');
    await tools.worktree_discard.execute({ name: 'try' }, context());
    await session.endTurn();
    const report = await session.rewind(1);
    expect(report.failed).toEqual([]);
    const withoutGit = (map: Map<string, string>) =>
      new Map([...map].filter(([key]) => !key.startsWith('.git/')));
    // git worktree add/remove writes the user's .git (the worktree layer's only use of it): compare the rest.
    expect(withoutGit(await snapshot(workspace))).toEqual(withoutGit(before));
    expect(await readFile(path.join(workspace, 'app.js'), 'utf8')).toBe('let a = 1;\n');
  });

  it.skipIf(!hasBwrap)(
    'under the sandbox, the write tools and bash both write inside an active worktree',
    async () => {
      const { session, tools, context, workspace } = await sandboxed();
      await writeFiles(workspace, { 'a.txt': 'a\n' });
      git(workspace, 'init', '-q');
      git(workspace, 'add', '.');
      git(workspace, 'commit', '-qm', 'init');
      await session.beginTurn({ label: 'worktree under the sandbox' });
      expect((await tools.worktree_create.execute({ name: 'exp' }, context())).ok).toBe(true);
      expect(
        await tools.write.execute({ path: 'new.txt', content: 'from write\n' }, context()),
      ).toMatchObject({ ok: true });
      const shell = (await tools.bash.execute({ command: 'echo from bash > new2.txt' }, context())) as {
        data: { exitCode: number };
      };
      expect(shell.data.exitCode).toBe(0);
      expect(await read(session.root, 'new.txt')).toBe('from write\n');
      expect(await read(session.root, 'new2.txt')).toBe('from bash\n');
      const store = await tools.write.execute(
        { path: path.join(session.home, 'projects', 'x.txt'), content: 'no' },
        context(),
      );
      expect(store.ok).toBe(false);
    },
  );
});
