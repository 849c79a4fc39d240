import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../../../src/tools/apply-patch/index.js';
import { patchOf, snapshot, useSandbox, writeFiles } from './helpers.js';

describe('createApplyPatchTool', () => {
  const sandbox = useSandbox();
  const tool = createApplyPatchTool();

  it('declares kind apply_patch and every path the patch touches, both ends of a Move included', async () => {
    const { root } = sandbox();
    const patch = patchOf(
      '*** Begin Patch',
      '*** Add File: new/a.txt',
      '+a',
      '*** Update File: b.txt',
      '*** Move to: moved/b.txt',
      '*** Delete File: c.txt',
      '*** Update File: ./d.txt',
      '@@',
      '+d',
      '*** End Patch',
    );
    expect(tool.kind).toBe('apply_patch');
    expect(await tool.paths!({ patch }, { root })).toEqual([
      'new/a.txt',
      'b.txt',
      'moved/b.txt',
      'c.txt',
      'd.txt',
    ]);
  });

  it('declares the paths under the heredoc cd directory and a symlink by its target', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'real/file.txt': 'x\n' });
    await symlink('real/file.txt', path.join(root, 'link.txt'));
    const patch = `cd sub && apply_patch <<'EOF'\n${patchOf('*** Begin Patch', '*** Delete File: gone.txt', '*** End Patch')}\nEOF`;
    expect(await tool.paths!({ patch }, { root })).toEqual(['sub/gone.txt']);
    const viaLink = patchOf('*** Begin Patch', '*** Update File: link.txt', '-x', '+y', '*** End Patch');
    expect(await tool.paths!({ patch: viaLink }, { root })).toEqual(['real/file.txt']);
  });

  it('declares no path for a patch that does not parse, and execute reports the parse error', async () => {
    const { root } = sandbox();
    const patch = patchOf('*** Begin Patch', '*** Update File: a.txt', 'no prefix', '*** End Patch');
    expect(await tool.paths!({ patch }, { root })).toEqual([]);
    expect(await tool.execute({ patch }, { root })).toEqual({
      ok: false,
      error: {
        code: 'PATCH_PARSE',
        message:
          "Invalid patch, line 3: unexpected line \"no prefix\" in a chunk. Every line of a chunk starts with ' ' (context), '+' (added) or '-' (removed).",
        data: { line: 3 },
      },
    });
  });

  it('declares an escaping path as written so the guard refuses it, and execute refuses it too', async () => {
    const { root } = sandbox();
    const patch = patchOf('*** Begin Patch', '*** Add File: ../x.txt', '+x', '*** End Patch');
    expect(await tool.paths!({ patch }, { root })).toEqual(['../x.txt']);
    const result = await tool.execute({ patch }, { root });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('applies a patch and reports each file with line counts', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'u.txt': 'a\nb\n', 'd.txt': 'x\ny\nz\n', 'm.txt': 'm\n' });
    const patch = patchOf(
      '*** Begin Patch',
      '*** Add File: n/new.txt',
      '+1',
      '+2',
      '*** Update File: u.txt',
      '-a',
      '+A',
      '+A2',
      '*** Delete File: d.txt',
      '*** Update File: m.txt',
      '*** Move to: moved.txt',
      '*** End Patch',
    );
    const result = await tool.execute({ patch }, { root });
    expect(result).toEqual({
      ok: true,
      output:
        'Success. Updated the following files:\nA n/new.txt (+2)\nM u.txt (+2 -1)\nD d.txt (-3)\nR m.txt -> moved.txt',
      data: {
        changes: [
          { action: 'added', path: 'n/new.txt', linesAdded: 2, linesRemoved: 0 },
          { action: 'updated', path: 'u.txt', linesAdded: 2, linesRemoved: 1 },
          { action: 'deleted', path: 'd.txt', linesAdded: 0, linesRemoved: 3 },
          { action: 'moved', path: 'moved.txt', from: 'm.txt', linesAdded: 0, linesRemoved: 0 },
        ],
        written: ['n/new.txt', 'u.txt', 'moved.txt', 'd.txt', 'm.txt'],
      },
    });
    expect(await snapshot(root)).toEqual({
      'moved.txt': 'm\n',
      'n/new.txt': '1\n2\n',
      'u.txt': 'A\nA2\nb\n',
    });
  });

  it('returns PATCH_APPLY as a tool failure and changes nothing', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'a.txt': 'a\n' });
    const result = await tool.execute(
      { patch: patchOf('*** Begin Patch', '*** Delete File: b.txt', '*** End Patch') },
      { root },
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'PATCH_APPLY',
        message: 'Cannot delete b.txt: the file does not exist.',
        data: { path: 'b.txt' },
      },
    });
    expect(await snapshot(root)).toEqual({ 'a.txt': 'a\n' });
  });

  it('returns INVALID_INPUT for an input without a patch string', async () => {
    const { root } = sandbox();
    const result = await tool.execute({ patch: 42 } as unknown as { patch: string }, { root });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('INVALID_INPUT');
  });
});
