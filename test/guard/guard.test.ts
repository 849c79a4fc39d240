import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrapTools } from '../../src/loop/wrap-tools.js';
import { createReferenceTools } from '../../src/tools/reference-tools.js';
import { createSession, read, setup, writeFiles } from '../helpers.js';

describe('read-before-edit guard', () => {
  it('refuses a write to an existing file never read, and leaves the disk untouched', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.ts': 'one\n' });
    await session.beginTurn({ label: 'edit' });
    const result = await tools.edit.execute(
      { path: 'a.ts', old_string: 'one', new_string: 'two' },
      context(),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'GUARD_NEVER_READ' } });
    expect(result.ok === false && result.error.message).toContain('Read it first');
    const overwrite = await tools.write.execute({ path: 'a.ts', content: 'x' }, context());
    expect(overwrite).toMatchObject({ ok: false, error: { code: 'GUARD_NEVER_READ' } });
    expect(await read(workspace, 'a.ts')).toBe('one\n');
    await session.endTurn();
    expect(session.rollbackPoints()[0]!.files).toEqual([]);
  });

  it('new files need no read; a successful write refreshes the baseline', async () => {
    const { workspace, session, tools, context } = await setup();
    await session.beginTurn({ label: 'create' });
    expect((await tools.write.execute({ path: 'n.ts', content: 'a\n' }, context())).ok).toBe(true);
    expect((await tools.edit.execute({ path: 'n.ts', old_string: 'a', new_string: 'b' }, context())).ok).toBe(
      true,
    );
    expect(await read(workspace, 'n.ts')).toBe('b\n');
  });

  it('case G1: a touch that keeps the bytes is not a change', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.ts': 'const a = 1;\n' });
    await session.beginTurn({ label: 'g1' });
    await tools.read.execute({ path: 'a.ts' }, context());
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(workspace, 'a.ts'), later, later);
    const result = await tools.edit.execute({ path: 'a.ts', old_string: '1', new_string: '2' }, context());
    expect(result.ok).toBe(true);
    expect(await read(workspace, 'a.ts')).toBe('const a = 2;\n');
  });

  it('case G2: a formatter that changed the file makes the edit STALE', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.ts': 'const a=1\n' });
    await session.beginTurn({ label: 'g2' });
    await tools.read.execute({ path: 'a.ts' }, context());
    await writeFile(path.join(workspace, 'a.ts'), 'const a = 1;\n');
    const result = await tools.edit.execute({ path: 'a.ts', old_string: '1', new_string: '2' }, context());
    expect(result).toMatchObject({ ok: false, error: { code: 'GUARD_STALE' } });
    expect(result.ok === false && result.error.message).toContain('Read it again');
    expect(await read(workspace, 'a.ts')).toBe('const a = 1;\n');
    await tools.read.execute({ path: 'a.ts' }, context());
    expect((await tools.edit.execute({ path: 'a.ts', old_string: '1', new_string: '2' }, context())).ok).toBe(
      true,
    );
  });

  it('a change within the same mtime tick is caught (hash decides)', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'a.ts': 'aaaa\n' });
    const fixed = new Date('2026-01-01T00:00:00Z');
    await utimes(path.join(workspace, 'a.ts'), fixed, fixed);
    await session.beginTurn({ label: 'tick' });
    await tools.read.execute({ path: 'a.ts' }, context());
    await writeFile(path.join(workspace, 'a.ts'), 'bbbb\n');
    await utimes(path.join(workspace, 'a.ts'), fixed, fixed);
    const result = await tools.write.execute({ path: 'a.ts', content: 'c' }, context());
    expect(result).toMatchObject({ ok: false, error: { code: 'GUARD_STALE' } });
  });

  it('refreshBaseline lets a host re-take the baseline after its formatter ran', async () => {
    const { workspace, session, tools, context } = await setup();
    await session.beginTurn({ label: 'fmt' });
    await tools.write.execute({ path: 'a.ts', content: 'const a=1\n' }, context());
    await writeFile(path.join(workspace, 'a.ts'), 'const a = 1;\n');
    await session.refreshBaseline('a.ts');
    expect((await tools.edit.execute({ path: 'a.ts', old_string: '1', new_string: '2' }, context())).ok).toBe(
      true,
    );
  });

  it('case G3: a partial read counts', async () => {
    const { workspace, session, tools, context } = await setup();
    const lines = Array.from({ length: 600 }, (_, index) => `line ${index + 1}`);
    await writeFiles(workspace, { 'big.ts': `${lines.join('\n')}\n` });
    await session.beginTurn({ label: 'g3' });
    const partial = await tools.read.execute({ path: 'big.ts', offset: 10, limit: 11 }, context());
    expect(partial).toMatchObject({ ok: true, data: { startLine: 10, endLine: 20, totalLines: 600 } });
    const result = await tools.edit.execute(
      { path: 'big.ts', old_string: 'line 500\n', new_string: 'line five hundred\n' },
      context(),
    );
    expect(result.ok).toBe(true);
    expect((await read(workspace, 'big.ts')).split('\n')[499]).toBe('line five hundred');
  });

  it('case G4: CRLF file with an LF old_string stays CRLF throughout', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
    await session.beginTurn({ label: 'g4' });
    await tools.read.execute({ path: 'w.txt' }, context());
    const result = await tools.edit.execute(
      { path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos\nmas' },
      context(),
    );
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(workspace, 'w.txt'), 'latin1')).toBe('uno\r\ndos\r\nmas\r\nthree\r\n');
  });

  it('case G5: a BOM survives edit and rewind', async () => {
    const { workspace, session, tools, context } = await setup();
    const original = Buffer.from('\uFEFFhello world\n', 'utf8');
    await writeFiles(workspace, { 'b.txt': original });
    await session.beginTurn({ label: 'g5' });
    await tools.read.execute({ path: 'b.txt' }, context());
    await tools.edit.execute({ path: 'b.txt', old_string: 'world', new_string: 'there' }, context());
    expect(await readFile(path.join(workspace, 'b.txt'))).toEqual(Buffer.from('\uFEFFhello there\n', 'utf8'));
    await session.endTurn();
    await session.rewind(1);
    expect((await readFile(path.join(workspace, 'b.txt'))).equals(original)).toBe(true);
  });

  it('case G6: a file without a final newline keeps having none', async () => {
    const { workspace, session, tools, context } = await setup();
    await writeFiles(workspace, { 'n.txt': 'a\nb\nc' });
    await session.beginTurn({ label: 'g6' });
    await tools.read.execute({ path: 'n.txt' }, context());
    await tools.edit.execute({ path: 'n.txt', old_string: 'a', new_string: 'A' }, context());
    expect(await read(workspace, 'n.txt')).toBe('A\nb\nc');
  });

  it('case G7: a read in one process counts in a resumed session', async () => {
    const { workspace, home, session, tools, context } = await setup({ sessionId: 'g7' });
    await writeFiles(workspace, { 'a.ts': 'x\n' });
    await session.beginTurn({ label: 'read' });
    await tools.read.execute({ path: 'a.ts' }, context());
    await session.endTurn();
    await session.close();
    const resumed = await createSession({ workspace, home, sessionId: 'g7' });
    const resumedTools = wrapTools({ session: resumed, tools: createReferenceTools() });
    await resumed.beginTurn({ label: 'edit' });
    const result = await resumedTools.edit.execute(
      { path: 'a.ts', old_string: 'x', new_string: 'y' },
      { root: resumed.root },
    );
    expect(result.ok).toBe(true);
    expect(await read(workspace, 'a.ts')).toBe('y\n');
  });
});
