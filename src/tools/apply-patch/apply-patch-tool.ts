import { z } from 'zod';
import { SafeturnError } from '../../errors/safeturn-error.js';
import type { SafeturnTool, ToolContext, ToolResult } from '../../loop/tool-types.js';
import { type ApplyPatchResult, applyPatch } from './apply-patch.js';
import { formatChanges } from './format-changes.js';
import { parsePatch } from './parse-patch.js';
import { patchPaths, resolvePatchPaths } from './resolve-patch-paths.js';

/** Input of the `apply_patch` tool. */
export interface ApplyPatchToolInput {
  patch: string;
}

const inputSchema = z.object({
  patch: z.string().describe("The whole patch, from '*** Begin Patch' to '*** End Patch'."),
});

const DESCRIPTION = `Edit files with a patch. The patch is all-or-nothing: if any part does not apply, no file changes.
Format:
*** Begin Patch
*** Add File: path/new.txt
+every line of the new file starts with +
*** Delete File: path/old.txt
*** Update File: path/file.py
*** Move to: path/renamed.py   (optional)
@@ def function_or_class_header():   (optional context line that locates the chunk; repeat @@ lines to narrow)
 unchanged context line (starts with a space)
-removed line
+added line
*** End of File   (optional: the chunk is at the end of the file)
*** End Patch
Give about 3 lines of context around each change. Paths are relative to the workspace.
Update, Delete and overwriting Add/Move need the file to have been read first.`;

const SAFETURN_CODES = new Set(['PATCH_PARSE', 'PATCH_APPLY', 'PATH_OUTSIDE_WORKSPACE', 'PATH_INVALID']);

/**
 * The reference `apply_patch` tool: `kind: 'apply_patch'`, `paths()` lists every file the
 * patch touches (both ends of a Move; `[]` for a patch that does not parse, so `execute`
 * reports the parse error), and `execute` applies it at `context.root`. Parse, path and apply
 * errors come back as a `ToolFailure` (`PATCH_PARSE`, `PATCH_APPLY`, `PATH_*`) for the model;
 * only host failures (e.g. an I/O error while reading) throw. Wrap it with `wrapTools()` to get
 * the read-before-edit guard and checkpoints.
 *
 * @returns the tool; its successful result's `data` is the {@link ApplyPatchResult}.
 * @example
 * ```ts
 * const tools = wrapTools(session, { apply_patch: createApplyPatchTool() });
 * await tools.apply_patch.execute({ patch }, { root: session.workspace });
 * ```
 */
export function createApplyPatchTool(): SafeturnTool<ApplyPatchToolInput, ToolResult<ApplyPatchResult>> {
  return {
    description: DESCRIPTION,
    inputSchema,
    kind: 'apply_patch',
    async paths(input: ApplyPatchToolInput, context: ToolContext): Promise<string[]> {
      let parsed: ReturnType<typeof parsePatch>;
      try {
        parsed = parsePatch(input.patch);
      } catch {
        return [];
      }
      try {
        // Declare exactly the files execute() will write (symlinks resolved like it does).
        const resolved = await resolvePatchPaths(context.root, parsed);
        return patchPaths(resolved.patch);
      } catch {
        // A path that escapes the root: declare it as written so the guard refuses it too.
        return patchPaths(parsed);
      }
    },
    async execute(input: ApplyPatchToolInput, context: ToolContext): Promise<ToolResult<ApplyPatchResult>> {
      const checked = inputSchema.safeParse(input);
      if (!checked.success) {
        return {
          ok: false,
          error: { code: 'INVALID_INPUT', message: `Invalid input: ${z.prettifyError(checked.error)}` },
        };
      }
      try {
        const options =
          context.abortSignal === undefined
            ? { root: context.root }
            : { root: context.root, abortSignal: context.abortSignal };
        const result = await applyPatch(checked.data.patch, options);
        return { ok: true, output: formatChanges(result.changes), data: result };
      } catch (error) {
        if (SafeturnError.isInstance(error) && SAFETURN_CODES.has(error.code)) {
          return { ok: false, error: { code: error.code, message: error.message, data: error.data } };
        }
        throw error;
      }
    },
  };
}
