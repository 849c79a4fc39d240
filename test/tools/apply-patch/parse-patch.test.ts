import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ParsedPatch, PatchParseError, parsePatch } from '../../../src/tools/apply-patch/index.js';
import { patchOf } from './helpers.js';

interface ChunkShape {
  contexts?: string[];
  oldLines: string[];
  newLines: string[];
  isEndOfFile?: boolean;
}

/** The parsed patch reduced to what the cases compare. */
function shape(parsed: ParsedPatch): unknown {
  return {
    ...(parsed.workdir === undefined ? {} : { workdir: parsed.workdir }),
    hunks: parsed.hunks.map((hunk) => {
      if (hunk.type !== 'update') return hunk;
      return {
        type: 'update',
        path: hunk.path,
        ...(hunk.movePath === undefined ? {} : { movePath: hunk.movePath }),
        chunks: hunk.chunks.map(
          (chunk): ChunkShape => ({
            ...(chunk.contexts.length === 0 ? {} : { contexts: chunk.contexts }),
            oldLines: chunk.oldLines,
            newLines: chunk.newLines,
            ...(chunk.isEndOfFile ? { isEndOfFile: true } : {}),
          }),
        ),
      };
    }),
  };
}

const simpleUpdate = patchOf(
  '*** Begin Patch',
  '*** Update File: a.txt',
  '@@',
  '-old',
  '+new',
  '*** End Patch',
);
const simpleUpdateShape = {
  hunks: [{ type: 'update', path: 'a.txt', chunks: [{ oldLines: ['old'], newLines: ['new'] }] }],
};

const parses: { name: string; text: string; expected: unknown }[] = [
  {
    name: 'Add File with lines, Delete File, Update File with Move and an @@ context',
    text: patchOf(
      '*** Begin Patch',
      '*** Add File: path/add.py',
      '+abc',
      '+def',
      '*** Delete File: path/delete.py',
      '*** Update File: path/update.py',
      '*** Move to: path/update2.py',
      '@@ def f():',
      '-    pass',
      '+    return 123',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        { type: 'add', path: 'path/add.py', lines: ['abc', 'def'], line: 2 },
        { type: 'delete', path: 'path/delete.py', line: 5 },
        {
          type: 'update',
          path: 'path/update.py',
          movePath: 'path/update2.py',
          chunks: [{ contexts: ['def f():'], oldLines: ['    pass'], newLines: ['    return 123'] }],
        },
      ],
    },
  },
  {
    name: 'Add File with no + lines is an empty file',
    text: patchOf('*** Begin Patch', '*** Add File: empty.txt', '*** End Patch'),
    expected: { hunks: [{ type: 'add', path: 'empty.txt', lines: [], line: 2 }] },
  },
  {
    name: 'first chunk without @@',
    text: patchOf('*** Begin Patch', '*** Update File: file2.py', ' import foo', '+bar', '*** End Patch'),
    expected: {
      hunks: [
        {
          type: 'update',
          path: 'file2.py',
          chunks: [{ oldLines: ['import foo'], newLines: ['import foo', 'bar'] }],
        },
      ],
    },
  },
  {
    name: 'stacked @@ headers narrow the context',
    text: patchOf(
      '*** Begin Patch',
      '*** Update File: a.py',
      '@@ class B:',
      '@@     def run(self):',
      '-        return 1',
      '+        return 2',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        {
          type: 'update',
          path: 'a.py',
          chunks: [
            {
              contexts: ['class B:', '    def run(self):'],
              oldLines: ['        return 1'],
              newLines: ['        return 2'],
            },
          ],
        },
      ],
    },
  },
  {
    name: 'a chunk of only + lines, ended by *** End of File',
    text: patchOf(
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@',
      '+tail',
      '*** End of File',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        { type: 'update', path: 'a.txt', chunks: [{ oldLines: [], newLines: ['tail'], isEndOfFile: true }] },
      ],
    },
  },
  {
    name: 'several chunks in one hunk, blank lines between them, empty line as empty context',
    text: patchOf(
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@ one',
      ' a',
      '',
      '-b',
      '+B',
      '@@ two',
      '-c',
      '+C',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        {
          type: 'update',
          path: 'a.txt',
          chunks: [
            { contexts: ['one'], oldLines: ['a', '', 'b'], newLines: ['a', '', 'B'] },
            { contexts: ['two'], oldLines: ['c'], newLines: ['C'] },
          ],
        },
      ],
    },
  },
  {
    name: 'surrounding white space and stray spaces or case in marker lines',
    text: `\n\n   *** Begin Patch  \n***  update file:   a.txt  \n@@\n-old\n+new\n  *** End Patch \n\n`,
    expected: simpleUpdateShape,
  },
  { name: "heredoc <<'EOF'", text: `<<'EOF'\n${simpleUpdate}\nEOF\n`, expected: simpleUpdateShape },
  { name: 'heredoc <<"EOF"', text: `<<"EOF"\n${simpleUpdate}\nEOF`, expected: simpleUpdateShape },
  {
    name: "apply_patch <<'PATCH' (any delimiter)",
    text: `apply_patch <<'PATCH'\n${simpleUpdate}\nPATCH\n`,
    expected: simpleUpdateShape,
  },
  {
    name: "cd DIR && apply_patch <<'EOF' joins DIR onto every path",
    text: `cd 'sub dir' && apply_patch <<'EOF'\n${patchOf('*** Begin Patch', '*** Add File: x.txt', '+x', '*** Update File: y.txt', '*** Move to: z/y.txt', '*** End Patch')}\nEOF`,
    expected: {
      workdir: 'sub dir',
      hunks: [
        { type: 'add', path: 'sub dir/x.txt', lines: ['x'], line: 3 },
        { type: 'update', path: 'sub dir/y.txt', movePath: 'sub dir/z/y.txt', chunks: [] },
      ],
    },
  },
  { name: 'CRLF patch text', text: simpleUpdate.replaceAll('\n', '\r\n'), expected: simpleUpdateShape },
  {
    name: 'unified-diff range header keeps only the text after it',
    text: patchOf(
      '*** Begin Patch',
      '*** Update File: a.py',
      '@@ -10,2 +10,2 @@ def f():',
      '-x',
      '+y',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        {
          type: 'update',
          path: 'a.py',
          chunks: [{ contexts: ['def f():'], oldLines: ['x'], newLines: ['y'] }],
        },
      ],
    },
  },
  {
    name: 'unicode content and a name with spaces',
    text: patchOf('*** Begin Patch', '*** Add File: docs/über notes.md', '+héllo — wörld ✓', '*** End Patch'),
    expected: { hunks: [{ type: 'add', path: 'docs/über notes.md', lines: ['héllo — wörld ✓'], line: 2 }] },
  },
  {
    name: 'blank lines between hunks',
    text: patchOf(
      '*** Begin Patch',
      '',
      '*** Delete File: a',
      '',
      '',
      '*** Delete File: b',
      '',
      '*** End Patch',
    ),
    expected: {
      hunks: [
        { type: 'delete', path: 'a', line: 3 },
        { type: 'delete', path: 'b', line: 6 },
      ],
    },
  },
];

const failures: { name: string; text: string; line: number; message: RegExp }[] = [
  {
    name: 'missing *** Begin Patch',
    text: patchOf('*** Update File: a', '@@', '-a', '*** End Patch'),
    line: 1,
    message: /first line of the patch must be '\*\*\* Begin Patch'/,
  },
  {
    name: 'missing *** End Patch',
    text: patchOf('*** Begin Patch', '*** Update File: a', '@@', '-a'),
    line: 4,
    message: /last line of the patch must be '\*\*\* End Patch'/,
  },
  {
    name: 'line numbers count leading blank lines',
    text: `\n\n*** Begin Patch\n*** Frobnicate File: a\n*** End Patch`,
    line: 4,
    message: /not a valid hunk header/,
  },
  {
    name: 'unknown header',
    text: patchOf('*** Begin Patch', '*** Delete File: a', '*** Rename File: b', '*** End Patch'),
    line: 3,
    message: /"\*\*\* Rename File: b" is not a valid hunk header/,
  },
  {
    name: 'a line without prefix after chunk lines',
    text: patchOf('*** Begin Patch', '*** Update File: a', '@@', ' keep', '-old', 'new', '*** End Patch'),
    line: 6,
    message: /expected '@@' to start the next chunk, got "new"/,
  },
  {
    name: 'a line without prefix opening a chunk',
    text: patchOf('*** Begin Patch', '*** Update File: a', '@@ ctx', 'oops', '*** End Patch'),
    line: 4,
    message: /unexpected line "oops"/,
  },
  {
    name: 'Update File without chunks',
    text: patchOf('*** Begin Patch', '*** Update File: a', '*** End Patch'),
    line: 2,
    message: /has no chunks/,
  },
  {
    name: 'a patch with no hunk',
    text: patchOf('*** Begin Patch', '*** End Patch'),
    line: 2,
    message: /no Add, Delete or Update File hunk/,
  },
  {
    name: 'a line without + inside Add File',
    text: patchOf('*** Begin Patch', '*** Add File: a', '+one', 'two', '*** End Patch'),
    line: 4,
    message: /is not part of the added file "a"/,
  },
  {
    name: 'heredoc not closed',
    text: `<<'EOF'\n${simpleUpdate}\nEND`,
    line: 8,
    message: /heredoc opened on line 1 is not closed by "EOF"/,
  },
  {
    name: '@@ with no lines before the next hunk',
    text: patchOf('*** Begin Patch', '*** Update File: a', '@@ x', '*** Delete File: b', '*** End Patch'),
    line: 3,
    message: /the chunk has no lines/,
  },
  {
    name: '*** End of File with no chunk lines',
    text: patchOf('*** Begin Patch', '*** Update File: a', '@@', '*** End of File', '*** End Patch'),
    line: 4,
    message: /no lines before '\*\*\* End of File'/,
  },
  {
    name: 'a header without a path',
    text: patchOf('*** Begin Patch', '*** Add File:   ', '+x', '*** End Patch'),
    line: 2,
    message: /names no file/,
  },
  { name: 'an empty text', text: '  \n ', line: 1, message: /the patch is empty/ },
];

describe('parsePatch', () => {
  it.each(parses)('parses: $name', ({ text, expected }) => {
    expect(shape(parsePatch(text))).toEqual(expected);
  });

  it.each(failures)('refuses with the line number: $name', ({ text, line, message }) => {
    let caught: unknown;
    try {
      parsePatch(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PatchParseError);
    const error = caught as PatchParseError;
    expect(error.code).toBe('PATCH_PARSE');
    expect(error.line).toBe(line);
    expect(error.data.line).toBe(line);
    expect(error.message).toMatch(new RegExp(`^Invalid patch, line ${line}: `));
    expect(error.message).toMatch(message);
  });

  it('records line counts and chunk line numbers', () => {
    const parsed = parsePatch(
      patchOf(
        '*** Begin Patch',
        '*** Update File: a',
        '@@ x',
        ' c',
        '-a',
        '-b',
        '+d',
        '@@',
        '+e',
        '*** End Patch',
      ),
    );
    const hunk = parsed.hunks[0];
    expect(hunk?.type).toBe('update');
    if (hunk?.type !== 'update') return;
    expect(hunk.chunks.map((chunk) => [chunk.line, chunk.linesAdded, chunk.linesRemoved])).toEqual([
      [3, 1, 2],
      [8, 1, 0],
    ]);
  });

  it('property: any text either parses or gives a PatchParseError with a line inside the text', () => {
    const lineArbitrary = fc.oneof(
      fc.constantFrom(
        '*** Begin Patch',
        '*** End Patch',
        '*** Add File: a',
        '*** Update File: b',
        '*** Move to: c',
        '*** Delete File: d',
        '*** End of File',
        '@@',
        '@@ x',
        '',
        ' ',
        "<<'EOF'",
        'EOF',
      ),
      fc.string({ maxLength: 6 }).map((text) => text.replaceAll('\n', '')),
      fc
        .constantFrom('+', '-', ' ')
        .chain((prefix) => fc.string({ maxLength: 4 }).map((text) => prefix + text.replaceAll('\n', ''))),
    );
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        try {
          parsePatch(text);
        } catch (error) {
          expect(error).toBeInstanceOf(PatchParseError);
          const line = (error as PatchParseError).line;
          expect(line).toBeGreaterThanOrEqual(1);
          expect(line).toBeLessThanOrEqual(Math.max(1, text.split('\n').length));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
