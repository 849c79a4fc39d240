import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { SafeturnTool } from '../../src/loop/tool-types.js';
import { wrapTools } from '../../src/loop/wrap-tools.js';
import { read, setup, writeFiles } from '../helpers.js';

describe('wrapTools', () => {
  it('returns zod validation errors as tool errors', async () => {
    const { session, tools, context } = await setup();
    await session.beginTurn({ label: 'bad input' });
    const result = await tools.write.execute({ path: 'a.txt' } as never, context());
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(result.ok === false && result.error.message).toContain('content');
  });

  it('refuses paths outside the workspace', async () => {
    const { session, tools, context } = await setup();
    await session.beginTurn({ label: 'escape' });
    for (const bad of ['../x.txt', '/etc/passwd', 'a/../../x']) {
      const result = await tools.write.execute({ path: bad, content: 'x' }, context());
      expect(result).toMatchObject({ ok: false, error: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    }
  });

  it('accepts an absolute path inside the workspace', async () => {
    const { workspace, session, tools, context } = await setup();
    await session.beginTurn({ label: 'abs' });
    const result = await tools.write.execute(
      { path: path.join(workspace, 'abs.txt'), content: 'x' },
      context(),
    );
    expect(result.ok).toBe(true);
    expect(session.rollbackPoints()[0]!.files).toEqual(['abs.txt']);
  });

  it('tools of kind other pass through untouched; a call outside a turn throws TURN_STATE', async () => {
    const { session } = await setup();
    const calls: unknown[] = [];
    const echo: SafeturnTool<{ text: string }, string> = {
      description: 'echo',
      inputSchema: z.object({ text: z.string() }),
      async execute(input) {
        calls.push(input);
        return input.text;
      },
    };
    const wrapped = wrapTools({ session, tools: { echo, write: { ...echo, kind: 'write' as const } } });
    expect(wrapped.echo).toBe(echo);
    await expect(wrapped.write.execute({ text: 'x' }, { root: session.root })).rejects.toMatchObject({
      code: 'TURN_STATE',
    });
  });

  it('a foreign write tool bound by kind and paths gets guard and checkpoint', async () => {
    const { workspace, session } = await setup();
    await writeFiles(workspace, { 'cfg.json': '{}' });
    const save: SafeturnTool<{ file: string; body: string }, string> = {
      description: 'save',
      inputSchema: z.object({ file: z.string(), body: z.string() }),
      async execute(input, context) {
        await writeFile(path.join(context.root, input.file), input.body);
        return 'saved';
      },
    };
    const wrapped = wrapTools({
      session,
      tools: { save },
      bindings: { save: { kind: 'write', paths: (input) => [input.file] } },
    });
    await session.beginTurn({ label: 'save' });
    expect(
      await wrapped.save.execute({ file: 'cfg.json', body: '{"a":1}' }, { root: session.root }),
    ).toMatchObject({
      ok: false,
      error: { code: 'GUARD_NEVER_READ' },
    });
    expect(await wrapped.save.execute({ file: 'new.json', body: '1' }, { root: session.root })).toBe('saved');
    await session.endTurn();
    await session.rewind(1);
    expect(await read(workspace, 'cfg.json')).toBe('{}');
  });

  it('concurrent writes to one path are serialised and the first capture wins', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'c.txt': 'orig' });
    await session.beginTurn({ label: 'race' });
    await tools.read.execute({ path: 'c.txt' }, context());
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        tools.write.execute({ path: 'c.txt', content: `v${index}` }, context()),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    await session.endTurn();
    await session.rewind(1);
    expect(await read(workspace, 'c.txt')).toBe('orig');
  });

  it('edit reports no match and ambiguous matches clearly', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'e.txt': 'a a a\n' });
    await session.beginTurn({ label: 'edit' });
    await tools.read.execute({ path: 'e.txt' }, context());
    expect(
      await tools.edit.execute({ path: 'e.txt', old_string: 'zz', new_string: 'y' }, context()),
    ).toMatchObject({
      ok: false,
      error: { code: 'EDIT_NO_MATCH' },
    });
    expect(
      await tools.edit.execute({ path: 'e.txt', old_string: 'a', new_string: 'b' }, context()),
    ).toMatchObject({
      ok: false,
      error: { code: 'EDIT_AMBIGUOUS', data: { matches: 3 } },
    });
    expect(
      await tools.edit.execute(
        { path: 'e.txt', old_string: 'a', new_string: 'b', replace_all: true },
        context(),
      ),
    ).toMatchObject({
      ok: true,
      data: { replacements: 3 },
    });
    expect(await read(workspace, 'e.txt')).toBe('b b b\n');
  });
});
