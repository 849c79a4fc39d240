export { failureResult, toCallToolResult } from './call-tool-result.js';
export type { ControlTool } from './control-tools.js';
export {
  createControlTools,
  redoInputSchema,
  rewindInputSchema,
  rollbackPointsInputSchema,
} from './control-tools.js';
export type { CreateMcpServerOptions, SafeturnMcpServer } from './create-mcp-server.js';
export { createMcpServer } from './create-mcp-server.js';
export type { McpTurnRequest } from './mcp-turns.js';
export {
  MCP_END_TURN_META_KEY,
  MCP_LABEL_META_KEY,
  MCP_TURN_META_KEY,
  McpTurns,
  readTurnMeta,
} from './mcp-turns.js';
export type { McpServerHandle, RunMcpServerOptions } from './run-mcp-server.js';
export { runMcpServer } from './run-mcp-server.js';
