import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isToolFailure, toolFailure } from '../loop/tool-failure.js';
import type { ToolFailure } from '../loop/tool-types.js';

/** JSON-safe copy (bigints as strings), so structured content always serialises. */
function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ??
      'null',
  );
}

/**
 * The MCP result of a failure the model should act on: `isError: true`, the code first in the
 * text (`GUARD_NEVER_READ: ...`), and the whole `{ ok: false, error }` as structured content.
 */
export function failureResult(failure: ToolFailure, turnId?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${failure.error.code}: ${failure.error.message}` }],
    structuredContent: jsonSafe(failure) as Record<string, unknown>,
    isError: true,
    ...(turnId ? { _meta: { 'safeturn/turn': turnId } } : {}),
  };
}

/**
 * Turns what a wrapped tool returned into an MCP result: a `ToolFailure` becomes `isError`,
 * a `{ ok: true, output, data? }` result becomes its `output` text with the result as structured
 * content, anything else is sent as JSON text.
 */
export function toCallToolResult(result: unknown, turnId?: string): CallToolResult {
  if (isToolFailure(result)) return failureResult(result, turnId);
  const meta = turnId ? { _meta: { 'safeturn/turn': turnId } } : {};
  if (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { output?: unknown }).output === 'string'
  ) {
    return {
      content: [{ type: 'text', text: (result as { output: string }).output }],
      structuredContent: jsonSafe(result) as Record<string, unknown>,
      ...meta,
    };
  }
  const text = typeof result === 'string' ? result : JSON.stringify(jsonSafe(result));
  return { content: [{ type: 'text', text }], ...meta };
}

/** An error thrown by a tool or the session, as an MCP error result (safeturn codes kept). */
export function errorResult(error: unknown, turnId?: string): CallToolResult {
  return failureResult(toolFailure(error), turnId);
}
