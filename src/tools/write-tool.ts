import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { resolveInRoot } from '../core/paths.js';
import { failWith, toolFailure } from '../loop/tool-failure.js';
import type { SafeturnTool, ToolResult } from '../loop/tool-types.js';
import { writeToolFile } from './write-file.js';

/** Input of the reference `write` tool. */
export const writeInputSchema = z.object({
  path: z.string().describe('File path, relative to the workspace or absolute inside it.'),
  content: z.string().describe('The complete new content of the file.'),
});
/** Input of the `write` tool (see {@link writeInputSchema}). */
export type WriteInput = z.infer<typeof writeInputSchema>;

/**
 * The reference `write` tool: creates or overwrites a file with `content` (UTF-8), creating
 * parent directories. Overwriting an existing file needs a prior read (the guard).
 */
export function createWriteTool(): SafeturnTool<
  WriteInput,
  ToolResult<{ path: string; bytes: number; created: boolean }>
> {
  return {
    description:
      'Create a file or overwrite it completely. To change part of an existing file prefer edit. An existing file must have been read first.',
    inputSchema: writeInputSchema,
    kind: 'write',
    async execute(input, context) {
      try {
        const { absolute, relative } = await resolveInRoot(context.root, input.path, {
          followFinalSymlink: true,
        });
        const existing = await stat(absolute).catch(() => undefined);
        if (existing?.isDirectory())
          return failWith('NOT_A_FILE', `${relative} is a directory.`, { path: relative });
        const bytes = Buffer.from(input.content, 'utf8');
        await writeToolFile(absolute, bytes);
        return {
          ok: true,
          output: `${existing ? 'Overwrote' : 'Created'} ${relative} (${bytes.byteLength} byte${bytes.byteLength === 1 ? '' : 's'}).`,
          data: { path: relative, bytes: bytes.byteLength, created: !existing },
        };
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}
