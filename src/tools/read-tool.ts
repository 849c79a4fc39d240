import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { resolveInRoot } from '../core/paths.js';
import { failWith, toolFailure } from '../loop/tool-failure.js';
import type { SafeturnTool, ToolResult } from '../loop/tool-types.js';
import { looksBinary } from './text-format.js';

/** Input of the reference `read` tool. Field names are fixed so recorded sessions replay. */
export const readInputSchema = z.object({
  path: z.string().describe('File path, relative to the workspace or absolute inside it.'),
  offset: z.number().int().min(1).optional().describe('First line to return, 1-based. Default: 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to return. Default: 2000.'),
});
/** Input of the `read` tool (see {@link readInputSchema}). */
export type ReadInput = z.infer<typeof readInputSchema>;

/** Data of a successful read. */
export interface ReadData {
  path: string;
  /** The lines returned, joined with '\n'. */
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
}

const DEFAULT_LIMIT = 2000;

/**
 * The reference `read` tool: returns a file's lines (`offset`/`limit` in lines, 1-based), numbered
 * like `cat -n`. A partial read counts as a read for the guard.
 */
export function createReadTool(): SafeturnTool<ReadInput, ToolResult<ReadData>> {
  return {
    description:
      'Read a text file. Returns numbered lines. Use offset/limit (in lines) for large files. You must read a file before you edit or overwrite it.',
    inputSchema: readInputSchema,
    kind: 'read',
    async execute(input, context) {
      try {
        const { absolute, relative } = await resolveInRoot(context.root, input.path, {
          followFinalSymlink: true,
        });
        const stats = await stat(absolute).catch(() => undefined);
        if (!stats) return failWith('NOT_FOUND', `${relative} does not exist.`, { path: relative });
        if (!stats.isFile())
          return failWith('NOT_A_FILE', `${relative} is not a regular file.`, { path: relative });
        const bytes = await readFile(absolute);
        if (looksBinary(bytes)) {
          return {
            ok: true,
            output: `${relative} is a binary file (${bytes.byteLength} bytes).`,
            data: { path: relative, content: '', startLine: 0, endLine: 0, totalLines: 0 },
          };
        }
        const lines = bytes
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .split(/\r?\n/);
        if (lines.at(-1) === '') lines.pop();
        const start = input.offset ?? 1;
        const selected = lines.slice(start - 1, start - 1 + (input.limit ?? DEFAULT_LIMIT));
        const end = start + selected.length - 1;
        const width = String(Math.max(end, 1)).length;
        const numbered = selected
          .map((line, index) => `${String(start + index).padStart(width, ' ')}\t${line}`)
          .join('\n');
        const more =
          end < lines.length ? `\n(lines ${start}-${end} of ${lines.length}; use offset/limit for more)` : '';
        return {
          ok: true,
          output:
            (selected.length === 0
              ? `(${relative}: no lines in that range; it has ${lines.length})`
              : numbered) + more,
          data: {
            path: relative,
            content: selected.join('\n'),
            startLine: start,
            endLine: end,
            totalLines: lines.length,
          },
        };
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}
