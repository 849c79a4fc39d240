import { createEditTool } from './edit-tool.js';
import { createReadTool } from './read-tool.js';
import { createWriteTool } from './write-tool.js';

/**
 * The reference file tools — `read`, `write`, `edit` — in the neutral shape, ready for `wrapTools()`.
 * Input field names are fixed: read `{ path, offset?, limit? }`, write `{ path, content }`,
 * edit `{ path, old_string, new_string, replace_all? }`.
 */
export function createReferenceTools() {
  return { read: createReadTool(), write: createWriteTool(), edit: createEditTool() };
}
