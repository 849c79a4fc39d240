import { readFile, readlink, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, type PatchFileChange } from '../../../src/tools/apply-patch/index.js';
import { directories, patchOf, snapshot, useSandbox, writeFiles } from './helpers.js';

interface ApplyCase {
  name: string;
  files: Record<string, string>;
  patch: string;
  /** Every file under the root afterwards. */
  expected: Record<string, string>;
  changes?: PatchFileChange[];
}

const update = (file: string, ...lines: string[]): string =>
  patchOf('*** Begin Patch', `*** Update File: ${file}`, ...lines, '*** End Patch');

const twentyFiles = Object.fromEntries(
  Array.from({ length: 20 }, (_, index) => [`pkg/m${index}.ts`, `export const v${index} = ${index};\n`]),
);

const cases: ApplyCase[] = [
  {
    name: 'multiple chunks in one file',
    files: { 'a.txt': 'one\ntwo\nthree\nfour\nfive\nsix\n' },
    patch: update('a.txt', '@@', ' one', '-two', '+TWO', '@@', ' five', '-six', '+SIX'),
    expected: { 'a.txt': 'one\nTWO\nthree\nfour\nfive\nSIX\n' },
    changes: [{ action: 'updated', path: 'a.txt', linesAdded: 2, linesRemoved: 2 }],
  },
  {
    name: 'context that repeats in the file is located by the @@ header',
    files: { 'f.py': 'def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n' },
    patch: update('f.py', '@@ def b():', '-    x = 1', '+    x = 2', '     return x'),
    expected: { 'f.py': 'def a():\n    x = 1\n    return x\n\ndef b():\n    x = 2\n    return x\n' },
  },
  {
    name: 'stacked @@ headers narrow the context step by step',
    files: {
      'c.py':
        'class A:\n    def run(self):\n        return 1\n\nclass B:\n    def stop(self):\n        return 1\n    def run(self):\n        return 1\n',
    },
    patch: update('c.py', '@@ class B:', '@@     def run(self):', '-        return 1', '+        return 2'),
    expected: {
      'c.py':
        'class A:\n    def run(self):\n        return 1\n\nclass B:\n    def stop(self):\n        return 1\n    def run(self):\n        return 2\n',
    },
  },
  {
    name: 'a chunk at the very start of the file',
    files: { 'a.txt': 'first\nsecond\nthird\n' },
    patch: update('a.txt', '-first', '+zeroth', '+first', ' second'),
    expected: { 'a.txt': 'zeroth\nfirst\nsecond\nthird\n' },
  },
  {
    name: 'a chunk at the very end, anchored by *** End of File where the text also appears earlier',
    files: { 'a.txt': 'end\nmiddle\nend\n' },
    patch: update('a.txt', '@@', '-end', '+END', '*** End of File'),
    expected: { 'a.txt': 'end\nmiddle\nEND\n' },
  },
  {
    name: 'a file without a trailing newline, changed in the middle, still has none',
    files: { 'a.txt': 'a\nb\nc' },
    patch: update('a.txt', ' a', '-b', '+B', ' c'),
    expected: { 'a.txt': 'a\nB\nc' },
  },
  {
    name: 'case P4: a chunk at the end of a file without a trailing newline keeps its final-newline state',
    files: { 'a.txt': 'a\nb\nlast' },
    patch: update('a.txt', '@@', ' b', '-last', '+LAST', '+more', '*** End of File'),
    expected: { 'a.txt': 'a\nb\nLAST\nmore' },
  },
  {
    name: 'a chunk of only + lines appends at the end, keeping the missing final newline',
    files: { 'a.txt': 'a\nb' },
    patch: update('a.txt', '@@', '+c'),
    expected: { 'a.txt': 'a\nb\nc' },
    changes: [{ action: 'updated', path: 'a.txt', linesAdded: 1, linesRemoved: 0 }],
  },
  {
    name: 'a chunk of only + lines under an @@ header inserts after that line',
    files: { 'a.py': 'import os\n\ndef main():\n    pass\n' },
    patch: update('a.py', '@@ import os', '+import sys'),
    expected: { 'a.py': 'import os\nimport sys\n\ndef main():\n    pass\n' },
  },
  {
    name: 'a CRLF file keeps CRLF on changed and added lines',
    files: { 'w.txt': 'one\r\ntwo\r\nthree\r\n' },
    patch: update('w.txt', ' one', '-two', '+TWO', '+two and a half', ' three'),
    expected: { 'w.txt': 'one\r\nTWO\r\ntwo and a half\r\nthree\r\n' },
  },
  {
    name: 'a mixed LF/CRLF file keeps each untouched line ending',
    files: { 'm.txt': 'a\r\nb\nc\r\nd\r\n' },
    patch: update('m.txt', ' c', '-d', '+D'),
    expected: { 'm.txt': 'a\r\nb\nc\r\nD\r\n' },
  },
  {
    name: 'a UTF-8 BOM is kept',
    files: { 'b.txt': '\uFEFFalpha\nbeta\n' },
    patch: update('b.txt', '-alpha', '+ALPHA'),
    expected: { 'b.txt': '\uFEFFALPHA\nbeta\n' },
  },
  {
    name: 'an empty file gets lines with newlines',
    files: { 'e.txt': '' },
    patch: update('e.txt', '@@', '+x', '+y'),
    expected: { 'e.txt': 'x\ny\n' },
  },
  {
    name: 'Add File in new nested directories',
    files: {},
    patch: patchOf(
      '*** Begin Patch',
      '*** Add File: deep/er/new.txt',
      '+hello',
      '+',
      '+world',
      '*** End Patch',
    ),
    expected: { 'deep/er/new.txt': 'hello\n\nworld\n' },
    changes: [{ action: 'added', path: 'deep/er/new.txt', linesAdded: 3, linesRemoved: 0 }],
  },
  {
    name: 'Add File with no lines makes an empty file',
    files: {},
    patch: patchOf('*** Begin Patch', '*** Add File: empty.txt', '*** End Patch'),
    expected: { 'empty.txt': '' },
  },
  {
    name: 'Add File onto an existing file overwrites it',
    files: { 'a.txt': 'old\n' },
    patch: patchOf('*** Begin Patch', '*** Add File: a.txt', '+new', '*** End Patch'),
    expected: { 'a.txt': 'new\n' },
    changes: [{ action: 'added', path: 'a.txt', linesAdded: 1, linesRemoved: 0, overwrote: true }],
  },
  {
    name: 'Delete File',
    files: { 'a.txt': 'one\ntwo\nthree', 'keep.txt': 'k\n' },
    patch: patchOf('*** Begin Patch', '*** Delete File: a.txt', '*** End Patch'),
    expected: { 'keep.txt': 'k\n' },
    changes: [{ action: 'deleted', path: 'a.txt', linesAdded: 0, linesRemoved: 3 }],
  },
  {
    name: 'Move without content changes keeps the bytes exactly',
    files: { 'old.txt': 'x\r\ny' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: old.txt',
      '*** Move to: new/place.txt',
      '*** End Patch',
    ),
    expected: { 'new/place.txt': 'x\r\ny' },
    changes: [{ action: 'moved', path: 'new/place.txt', from: 'old.txt', linesAdded: 0, linesRemoved: 0 }],
  },
  {
    name: 'Move with content changes',
    files: { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '*** Move to: lib/b.ts',
      '@@',
      '-export const a = 1;',
      '+export const a = 10;',
      '*** End Patch',
    ),
    expected: { 'lib/b.ts': 'export const a = 10;\nexport const b = 2;\n' },
    changes: [{ action: 'moved', path: 'lib/b.ts', from: 'src/a.ts', linesAdded: 1, linesRemoved: 1 }],
  },
  {
    name: 'Move onto an existing file overwrites it',
    files: { 'a.txt': 'A\n', 'b.txt': 'B\n' },
    patch: patchOf('*** Begin Patch', '*** Update File: a.txt', '*** Move to: b.txt', '*** End Patch'),
    expected: { 'b.txt': 'A\n' },
    changes: [
      { action: 'moved', path: 'b.txt', from: 'a.txt', linesAdded: 0, linesRemoved: 0, overwrote: true },
    ],
  },
  {
    name: 'unicode content and file names with spaces',
    files: { 'docs/my notes.md': 'Grüße\nnaïve café\n' },
    patch: update('docs/my notes.md', '-naïve café', '+naïve café ☕', '+日本語'),
    expected: { 'docs/my notes.md': 'Grüße\nnaïve café ☕\n日本語\n' },
  },
  {
    name: 'a patch touching 20 files',
    files: twentyFiles,
    patch: patchOf(
      '*** Begin Patch',
      ...Array.from({ length: 20 }, (_, index) => [
        `*** Update File: pkg/m${index}.ts`,
        `-export const v${index} = ${index};`,
        `+export const v${index} = ${index * 2};`,
      ]).flat(),
      '*** End Patch',
    ),
    expected: Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [
        `pkg/m${index}.ts`,
        `export const v${index} = ${index * 2};\n`,
      ]),
    ),
  },
  {
    name: 'context matches ignoring trailing white space, and the file keeps it on context lines',
    files: { 't.txt': 'keep   \nold\n' },
    patch: update('t.txt', ' keep', '-old', '+new'),
    expected: { 't.txt': 'keep   \nnew\n' },
  },
  {
    name: 'context matches ignoring leading and trailing white space',
    files: { 't.py': '\tif x:\n\t\treturn 1\n' },
    patch: update('t.py', ' if x:', '-    return 1', '+\t\treturn 2'),
    expected: { 't.py': '\tif x:\n\t\treturn 2\n' },
  },
  {
    name: 'context matches with typographic punctuation normalised; the file keeps its own characters',
    files: { 'q.md': 'He said \u201Chi\u201D \u2014 it\u2019s fine\u00A0now\nold\n' },
    patch: update('q.md', ' He said "hi" - it\'s fine now', '-old', '+new'),
    expected: { 'q.md': 'He said \u201Chi\u201D \u2014 it\u2019s fine\u00A0now\nnew\n' },
  },
  {
    name: 'each chunk is searched forward from the end of the previous one',
    files: { 'a.txt': 'x\na\nx\n' },
    patch: update('a.txt', '@@', '-a', '+A', '@@', '-x', '+X'),
    expected: { 'a.txt': 'x\nA\nX\n' },
  },
  {
    name: 'a blank separator line at the end of a chunk is not required in the file',
    files: { 'a.txt': 'a\nb' },
    patch: update('a.txt', '@@', '-a', '+A', ' b', '', '@@', '+c'),
    expected: { 'a.txt': 'A\nb\nc' },
  },
  {
    name: 'hunks apply in order: Add then Update then Move of the same file',
    files: {},
    patch: patchOf(
      '*** Begin Patch',
      '*** Add File: n.txt',
      '+one',
      '*** Update File: n.txt',
      '*** Move to: m.txt',
      '@@',
      '+two',
      '*** End Patch',
    ),
    expected: { 'm.txt': 'one\ntwo\n' },
  },
  {
    name: 'a heredoc with cd DIR && resolves paths under DIR',
    files: { 'sub/a.txt': 'a\n' },
    patch: `cd sub && apply_patch <<'EOF'\n${update('a.txt', '-a', '+b')}\nEOF\n`,
    expected: { 'sub/a.txt': 'b\n' },
    changes: [{ action: 'updated', path: 'sub/a.txt', linesAdded: 1, linesRemoved: 1 }],
  },
  {
    name: 'Add, Update and Delete together',
    files: { 'u.txt': 'u\n', 'd.txt': 'd\n' },
    patch: patchOf(
      '*** Begin Patch',
      '*** Add File: a.txt',
      '+a',
      '*** Update File: u.txt',
      '-u',
      '+U',
      '*** Delete File: d.txt',
      '*** End Patch',
    ),
    expected: { 'a.txt': 'a\n', 'u.txt': 'U\n' },
  },
];

describe('applyPatch', () => {
  const sandbox = useSandbox();

  it.each(cases)('applies: $name', async ({ files, patch, expected, changes }) => {
    const { root } = sandbox();
    await writeFiles(root, files);
    const result = await applyPatch(patch, { root });
    expect(await snapshot(root)).toEqual(expected);
    if (changes !== undefined) expect(result.changes).toEqual(changes);
  });

  it('case P3: Add File in a nested directory that does not exist creates it', async () => {
    const { root } = sandbox();
    await applyPatch(patchOf('*** Begin Patch', '*** Add File: a/b/c/new.txt', '+x', '*** End Patch'), {
      root,
    });
    expect(await directories(root)).toEqual(['a', 'a/b', 'a/b/c']);
    expect(await readFile(path.join(root, 'a/b/c/new.txt'), 'utf8')).toBe('x\n');
  });

  it('keeps the file mode of an updated and of a moved file', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'run.sh': '#!/bin/sh\necho a\n', 'tool.sh': '#!/bin/sh\n' });
    const { chmod } = await import('node:fs/promises');
    await chmod(path.join(root, 'run.sh'), 0o755);
    await chmod(path.join(root, 'tool.sh'), 0o750);
    await applyPatch(
      patchOf(
        '*** Begin Patch',
        '*** Update File: run.sh',
        '-echo a',
        '+echo b',
        '*** Update File: tool.sh',
        '*** Move to: bin/tool.sh',
        '*** End Patch',
      ),
      { root },
    );
    expect((await stat(path.join(root, 'run.sh'))).mode & 0o7777).toBe(0o755);
    expect((await stat(path.join(root, 'bin/tool.sh'))).mode & 0o7777).toBe(0o750);
  });

  it('an Update through a symlink inside the workspace edits the target and keeps the link', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'real/target.txt': 'old\n' });
    await symlink('real/target.txt', path.join(root, 'link.txt'));
    const result = await applyPatch(update('link.txt', '-old', '+new'), { root });
    expect(result.changes).toEqual([
      { action: 'updated', path: 'real/target.txt', linesAdded: 1, linesRemoved: 1 },
    ]);
    expect(await readlink(path.join(root, 'link.txt'))).toBe('real/target.txt');
    expect(await snapshot(root)).toEqual({ 'real/target.txt': 'new\n' });
  });

  it('leaves a file whose patch changes nothing untouched (same inode and mtime)', async () => {
    const { root } = sandbox();
    await writeFiles(root, { 'a.txt': 'same\n' });
    const before = await stat(path.join(root, 'a.txt'));
    const result = await applyPatch(update('a.txt', '-same', '+same'), { root });
    const after = await stat(path.join(root, 'a.txt'));
    expect(result.written).toEqual([]);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });
});
