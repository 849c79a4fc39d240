import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, parsePatch, planPatch } from '../../../src/tools/apply-patch/index.js';
import { generateUpdatePatch } from './generate-patch.js';
import { useSandbox } from './helpers.js';

// Few distinct lines, so that context repeats; plus lines that look like patch syntax.
const line = fc.constantFrom(
  'a',
  'b',
  'a ',
  '  a',
  '',
  'x\ty',
  '-',
  '+',
  '@@',
  '***',
  '@@ a',
  'é ü ✓',
  '“q” — r',
);

interface FileSpec {
  lines: string[];
  eol: string;
  finalNewline: boolean;
  bom: boolean;
}

const fileArbitrary = fc.record({
  lines: fc.array(line, { maxLength: 30 }),
  eol: fc.constantFrom('\n', '\r\n'),
  finalNewline: fc.boolean(),
  bom: fc.boolean(),
});

// Without a final newline, a last empty line is not in the bytes: "a\n" is ['a'] with a newline.
const canonical = (spec: FileSpec): boolean => spec.finalNewline || spec.lines.at(-1) !== '';

const editsArbitrary = fc.array(
  fc.record({
    at: fc.nat(),
    deleteCount: fc.integer({ min: 0, max: 3 }),
    insert: fc.array(line, { maxLength: 3 }),
  }),
  { minLength: 1, maxLength: 5 },
);

function encode(spec: FileSpec, lines: string[], finalNewline: boolean): string {
  const body = lines.map((text) => text + spec.eol).join('');
  return (
    (spec.bom ? '\uFEFF' : '') + (finalNewline || lines.length === 0 ? body : body.slice(0, -spec.eol.length))
  );
}

/** A file with no line ending at all gets LF lines: the spec of the edited file as the applier will write it. */
function editedSpec(spec: FileSpec, finalNewline: boolean): FileSpec {
  const hasEnding = spec.lines.length > 1 || (spec.lines.length === 1 && finalNewline);
  return hasEnding ? spec : { ...spec, eol: '\n' };
}

function edit(lines: string[], edits: { at: number; deleteCount: number; insert: string[] }[]): string[] {
  const result = [...lines];
  for (const change of edits)
    result.splice(change.at % (result.length + 1), change.deleteCount, ...change.insert);
  return result;
}

describe('property: a patch generated from an edit applies back to exactly the edited file', () => {
  const sandbox = useSandbox();

  it('in memory (planPatch), 500 random files and edits', () => {
    fc.assert(
      fc.property(fileArbitrary, editsArbitrary, (spec, edits) => {
        fc.pre(canonical(spec));
        const edited = edit(spec.lines, edits);
        const patch = generateUpdatePatch('f.txt', spec.lines, edited);
        fc.pre(patch !== undefined);
        // An empty file counts as ending with a newline.
        const finalNewline = spec.finalNewline || spec.lines.length === 0;
        const original = new TextEncoder().encode(encode(spec, spec.lines, finalNewline));
        const plan = planPatch({ patch: parsePatch(patch!), readFile: () => original });
        const written = plan.writes[0]?.content ?? original;
        expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(written)).toBe(
          encode(editedSpec(spec, finalNewline), edited, finalNewline),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('on disk (applyPatch), 100 random files and edits', async () => {
    const { root } = sandbox();
    const file = path.join(root, 'f.txt');
    await fc.assert(
      fc.asyncProperty(fileArbitrary, editsArbitrary, async (spec, edits) => {
        fc.pre(canonical(spec));
        const edited = edit(spec.lines, edits);
        const patch = generateUpdatePatch('f.txt', spec.lines, edited);
        fc.pre(patch !== undefined);
        const finalNewline = spec.finalNewline || spec.lines.length === 0;
        await writeFile(file, encode(spec, spec.lines, finalNewline));
        await applyPatch(patch!, { root });
        expect(await readFile(file, 'utf8')).toBe(
          encode(editedSpec(spec, finalNewline), edited, finalNewline),
        );
      }),
      { numRuns: 100 },
    );
  });
});
