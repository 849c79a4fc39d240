import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapTools } from '../../../src/loop/wrap-tools.js';
import { createApplyPatchTool } from '../../../src/tools/apply-patch/index.js';
import { createReferenceTools } from '../../../src/tools/reference-tools.js';
import { setup } from '../../helpers.js';
import { generateUpdatePatch } from './generate-patch.js';
import { directories, patchOf, snapshot, writeFiles } from './helpers.js';

async function patchSession() {
  const base = await setup();
  const tools = wrapTools({
    session: base.session,
    tools: { ...createReferenceTools(), apply_patch: createApplyPatchTool() },
  });
  const context = { root: base.session.root };
  const readAll = async (...files: string[]) => {
    for (const file of files) expect((await tools.read.execute({ path: file }, context)).ok).toBe(true);
  };
  return { ...base, tools, context, readAll };
}

describe('apply_patch through wrapTools: guard, checkpoints, rewind', () => {
  it('case P1: a patch whose second file fails to apply changes no file', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    await writeFiles(workspace, { 'one.txt': 'one\n', 'two.txt': 'two\n' });
    await session.beginTurn({ label: 'P1' });
    await readAll('one.txt', 'two.txt');
    const before = await snapshot(workspace);
    const result = await tools.apply_patch.execute(
      {
        patch: patchOf(
          '*** Begin Patch',
          '*** Update File: one.txt',
          '-one',
          '+ONE',
          '*** Add File: made/up.txt',
          '+x',
          '*** Update File: two.txt',
          '-three',
          '+THREE',
          '*** End Patch',
        ),
      },
      context,
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'PATCH_APPLY', data: { path: 'two.txt' } } });
    expect(await snapshot(workspace)).toEqual(before);
    expect(await directories(workspace)).toEqual([]);
    await session.endTurn();
  });

  it('case P2: Move onto an existing, unread file is refused and nothing is written', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    await writeFiles(workspace, { 'src.txt': 'source\n', 'dst.txt': 'precious\n' });
    await session.beginTurn({ label: 'P2' });
    await readAll('src.txt');
    const patch = patchOf(
      '*** Begin Patch',
      '*** Update File: src.txt',
      '*** Move to: dst.txt',
      '*** End Patch',
    );
    const refused = await tools.apply_patch.execute({ patch }, context);
    expect(refused).toMatchObject({ ok: false, error: { code: 'GUARD_NEVER_READ' } });
    expect(await snapshot(workspace)).toEqual({ 'dst.txt': 'precious\n', 'src.txt': 'source\n' });
    // Once read, the overwrite is allowed.
    await readAll('dst.txt');
    expect(await tools.apply_patch.execute({ patch }, context)).toMatchObject({ ok: true });
    expect(await snapshot(workspace)).toEqual({ 'dst.txt': 'source\n' });
    await session.endTurn();
  });

  it('case P3: Add File in a nested directory that does not exist creates it; rewind removes it again', async () => {
    const { workspace, session, tools, context } = await patchSession();
    await writeFiles(workspace, { 'keep.txt': 'k\n' });
    await session.beginTurn({ label: 'P3' });
    const result = await tools.apply_patch.execute(
      { patch: patchOf('*** Begin Patch', '*** Add File: a/b/c/new.txt', '+hello', '*** End Patch') },
      context,
    );
    expect(result).toMatchObject({ ok: true });
    expect(await directories(workspace)).toEqual(['a', 'a/b', 'a/b/c']);
    await session.endTurn();
    await session.rewind(1);
    expect(await directories(workspace)).toEqual([]);
    expect(await snapshot(workspace)).toEqual({ 'keep.txt': 'k\n' });
  });

  it('case P4: a chunk at the end of a file without a trailing newline keeps that state; rewind restores the bytes', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    await writeFiles(workspace, { 'end.txt': 'one\r\ntwo\r\nthree' });
    await session.beginTurn({ label: 'P4' });
    await readAll('end.txt');
    const result = await tools.apply_patch.execute(
      {
        patch: patchOf(
          '*** Begin Patch',
          '*** Update File: end.txt',
          '@@',
          ' two',
          '-three',
          '+THREE',
          '+four',
          '*** End of File',
          '*** End Patch',
        ),
      },
      context,
    );
    expect(result).toMatchObject({ ok: true });
    expect(await readFile(path.join(workspace, 'end.txt'), 'utf8')).toBe('one\r\ntwo\r\nTHREE\r\nfour');
    await session.endTurn();
    await session.rewind(1);
    expect(await readFile(path.join(workspace, 'end.txt'), 'utf8')).toBe('one\r\ntwo\r\nthree');
  });

  it('an Update of a file never read is refused before any hunk is written, a stale one too', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    await writeFiles(workspace, { 'read.txt': 'r\n', 'unread.txt': 'u\n' });
    await session.beginTurn({ label: 'guard' });
    await readAll('read.txt');
    const patch = patchOf(
      '*** Begin Patch',
      '*** Add File: n.txt',
      '+n',
      '*** Update File: read.txt',
      '-r',
      '+R',
      '*** Update File: unread.txt',
      '-u',
      '+U',
      '*** End Patch',
    );
    expect(await tools.apply_patch.execute({ patch }, context)).toMatchObject({
      ok: false,
      error: { code: 'GUARD_NEVER_READ', data: { path: 'unread.txt' } },
    });
    await readAll('unread.txt');
    await writeFile(path.join(workspace, 'read.txt'), 'changed by the user\n');
    expect(await tools.apply_patch.execute({ patch }, context)).toMatchObject({
      ok: false,
      error: { code: 'GUARD_STALE' },
    });
    expect(await snapshot(workspace)).toEqual({ 'read.txt': 'changed by the user\n', 'unread.txt': 'u\n' });
    await session.endTurn();
  });

  it('Add File onto an existing unread file is refused; Delete of an unread file too', async () => {
    const { workspace, session, tools, context } = await patchSession();
    await writeFiles(workspace, { 'a.txt': 'a\n' });
    await session.beginTurn({ label: 'overwrite' });
    for (const patch of [
      patchOf('*** Begin Patch', '*** Add File: a.txt', '+new', '*** End Patch'),
      patchOf('*** Begin Patch', '*** Delete File: a.txt', '*** End Patch'),
    ]) {
      expect(await tools.apply_patch.execute({ patch }, context)).toMatchObject({
        ok: false,
        error: { code: 'GUARD_NEVER_READ' },
      });
    }
    expect(await snapshot(workspace)).toEqual({ 'a.txt': 'a\n' });
    await session.endTurn();
  });

  it('one rewind undoes a whole patch of adds, updates, deletes and moves, byte for byte', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    const files = {
      'u.txt': '\uFEFFu1\r\nu2\r\n',
      'd.txt': 'delete me',
      'm/src.ts': 'export {};\n',
      'sp ace.txt': 'ü\n',
    };
    await writeFiles(workspace, files);
    await session.beginTurn({ label: 'big patch' });
    await readAll('u.txt', 'd.txt', 'm/src.ts', 'sp ace.txt');
    const result = await tools.apply_patch.execute(
      {
        patch: patchOf(
          '*** Begin Patch',
          '*** Add File: new/deep/file.txt',
          '+new',
          '*** Update File: u.txt',
          '-u2',
          '+U2',
          '*** Delete File: d.txt',
          '*** Update File: m/src.ts',
          '*** Move to: lib/dst.ts',
          '@@',
          '+export const x = 1;',
          '*** Update File: sp ace.txt',
          '-ü',
          '+ö',
          '*** End Patch',
        ),
      },
      context,
    );
    expect(result).toMatchObject({ ok: true });
    await session.endTurn();
    expect(session.rollbackPoints()[0]!.files.toSorted()).toEqual(
      ['d.txt', 'lib/dst.ts', 'm/src.ts', 'new/deep/file.txt', 'sp ace.txt', 'u.txt'].toSorted(),
    );
    await session.rewind(1);
    expect(await snapshot(workspace)).toEqual(files);
    expect(await directories(workspace)).toEqual(['m']);
  });

  it('two patches to one file in a turn: the second is allowed, and rewind brings back the first pre-image', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    await writeFiles(workspace, { 'a.txt': 'v1\n' });
    await session.beginTurn({ label: 'twice' });
    await readAll('a.txt');
    for (const [from, to] of [
      ['v1', 'v2'],
      ['v2', 'v3'],
    ]) {
      const patch = patchOf(
        '*** Begin Patch',
        '*** Update File: a.txt',
        `-${from}`,
        `+${to}`,
        '*** End Patch',
      );
      expect(await tools.apply_patch.execute({ patch }, context)).toMatchObject({ ok: true });
    }
    await session.endTurn();
    expect(await snapshot(workspace)).toEqual({ 'a.txt': 'v3\n' });
    await session.rewind(1);
    expect(await snapshot(workspace)).toEqual({ 'a.txt': 'v1\n' });
  });

  it('property: for random files and edits, the generated patch applies exactly and rewind restores the original', async () => {
    const { workspace, session, tools, context, readAll } = await patchSession();
    const line = fc.constantFrom('a', 'b', '', '  a', '@@', '-', 'ü ✓');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 20 }),
        fc.array(
          fc.record({
            at: fc.nat(),
            deleteCount: fc.integer({ min: 0, max: 2 }),
            insert: fc.array(line, { maxLength: 2 }),
          }),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        async (lines, edits) => {
          const edited = [...lines];
          for (const change of edits)
            edited.splice(change.at % (edited.length + 1), change.deleteCount, ...change.insert);
          const name = `f${run++}.txt`;
          const patch = generateUpdatePatch(name, lines, edited);
          fc.pre(patch !== undefined);
          const original = lines.map((text) => `${text}\n`).join('');
          await writeFile(path.join(workspace, name), original);
          await session.beginTurn({ label: name });
          await readAll(name);
          expect(await tools.apply_patch.execute({ patch: patch! }, context)).toMatchObject({ ok: true });
          await session.endTurn();
          expect(await readFile(path.join(workspace, name), 'utf8')).toBe(
            edited.map((text) => `${text}\n`).join(''),
          );
          await session.rewind(1);
          expect(await readFile(path.join(workspace, name), 'utf8')).toBe(original);
        },
      ),
      { numRuns: 40 },
    );
  });
});
