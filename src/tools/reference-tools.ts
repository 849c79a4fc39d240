import { createApplyPatchTool } from './apply-patch/apply-patch-tool.js';
import { type BashToolOptions, createBashTool } from './bash/bash-tool.js';
import { createEditTool } from './edit-tool.js';
import { createReadTool } from './read-tool.js';
import { createWriteTool } from './write-tool.js';

/** Options of {@link createReferenceTools}. */
export interface ReferenceToolsOptions {
  /** Options of the `bash` tool (timeout, output cap, the sandbox hook). */
  bash?: BashToolOptions;
}

/**
 * The reference tools — `read`, `write`, `edit`, `apply_patch`, `bash` — in the neutral shape,
 * ready for `wrapTools()`. Input field names are fixed so recorded sessions replay:
 * read `{ path, offset?, limit? }`, write `{ path, content }`, edit `{ path, old_string, new_string, replace_all? }`,
 * apply_patch `{ patch }`, bash `{ command, timeout_ms? }`.
 */
export function createReferenceTools(options: ReferenceToolsOptions = {}) {
  return {
    read: createReadTool(),
    write: createWriteTool(),
    edit: createEditTool(),
    apply_patch: createApplyPatchTool(),
    bash: createBashTool(options.bash),
  };
}
