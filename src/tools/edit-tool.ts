import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { resolveInRoot } from '../core/paths.js';
import { failWith, toolFailure } from '../loop/tool-failure.js';
import type { SafeturnTool, ToolResult } from '../loop/tool-types.js';
import { decodeLayout, encodeLayout } from './text-format.js';
import { writeToolFile } from './write-file.js';

/** Input of the reference `edit` tool. */
export const editInputSchema = z.object({
  path: z.string().describe('File path, relative to the workspace or absolute inside it.'),
  old_string: z
    .string()
    .min(1)
    .describe('Exact text to replace; must occur exactly once unless replace_all.'),
  new_string: z.string().describe('Replacement text.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence. Default: false.'),
});
/** Input of the `edit` tool (see {@link editInputSchema}). */
export type EditInput = z.infer<typeof editInputSchema>;

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return count;
    count += 1;
    from = at + needle.length;
  }
}

/**
 * The reference `edit` tool: replaces `old_string` by `new_string`, which must match exactly once
 * unless `replace_all`. On a CRLF file an `old_string` sent with LF still matches and the new text
 * is written with CRLF; a UTF-8 BOM and the presence or absence of a final newline are kept.
 * Fails with `EDIT_NO_MATCH` or `EDIT_AMBIGUOUS` (with the count) so the model can fix its call.
 */
export function createEditTool(): SafeturnTool<
  EditInput,
  ToolResult<{ path: string; replacements: number }>
> {
  return {
    description:
      'Replace text in an existing file. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true. Read the file first.',
    inputSchema: editInputSchema,
    kind: 'edit',
    async execute(input, context) {
      try {
        const { absolute, relative } = await resolveInRoot(context.root, input.path, {
          followFinalSymlink: true,
        });
        const bytes = await readFile(absolute).catch(() => undefined);
        if (!bytes)
          return failWith('NOT_FOUND', `${relative} does not exist; use write to create it.`, {
            path: relative,
          });
        if (input.old_string === input.new_string) {
          return failWith('INVALID_INPUT', 'old_string and new_string are the same; nothing to change.');
        }
        const { layout, body } = decodeLayout(bytes.toString('utf8'));
        const normalise = (text: string) => (layout.eol === '\r\n' ? text.replaceAll('\r\n', '\n') : text);
        const oldText = normalise(input.old_string);
        const newText = normalise(input.new_string);
        const count = countOccurrences(body, oldText);
        if (count === 0) {
          return failWith(
            'EDIT_NO_MATCH',
            `old_string was not found in ${relative}. Read the file again and copy the text exactly (whitespace included).`,
            { path: relative },
          );
        }
        if (count > 1 && !input.replace_all) {
          return failWith(
            'EDIT_AMBIGUOUS',
            `old_string matches ${count} places in ${relative}. Add surrounding lines to make it unique, or set replace_all.`,
            { path: relative, matches: count },
          );
        }
        const updated = input.replace_all
          ? body.split(oldText).join(newText)
          : body.replace(oldText, () => newText);
        await writeToolFile(absolute, Buffer.from(encodeLayout(updated, layout), 'utf8'));
        const replacements = input.replace_all ? count : 1;
        return {
          ok: true,
          output: `Edited ${relative} (${replacements} replacement${replacements === 1 ? '' : 's'}).`,
          data: { path: relative, replacements },
        };
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}
