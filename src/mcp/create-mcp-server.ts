import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import PQueue from 'p-queue';
import { z } from 'zod';
import { SafeturnError } from '../errors/safeturn-error.js';
import type { Session } from '../loop/session.js';
import { createSessionTools } from '../loop/session-tools.js';
import { failWith } from '../loop/tool-failure.js';
import type { SafeturnTool } from '../loop/tool-types.js';
import type { ReferenceToolsOptions } from '../tools/reference-tools.js';
import { errorResult, failureResult, toCallToolResult } from './call-tool-result.js';
import { createControlTools } from './control-tools.js';
import { McpTurns, readTurnMeta } from './mcp-turns.js';

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of any input and output type.
type AnyTool = SafeturnTool<any, any>;

/** Options of {@link createMcpServer}. */
export interface CreateMcpServerOptions {
  /** The session whose turns, guard and checkpoints every call goes through. */
  session: Session;
  /**
   * Wrapped tools to serve (from `wrapTools()` / `createSessionTools()`).
   * @default createSessionTools(session, referenceTools): read, write, edit, apply_patch, bash and the worktree tools
   */
  tools?: Record<string, AnyTool>;
  /** Options of the default reference tools (bash timeout, output cap). Ignored when `tools` is given. */
  referenceTools?: ReferenceToolsOptions;
  /** Name the server reports in `initialize`. @default 'safeturn' */
  name?: string;
  /** Called with one line for host errors that are not safeturn errors (they also reach the client). @default nothing */
  log?: (line: string) => void;
}

/** The MCP server plus what closing it needs. */
export interface SafeturnMcpServer {
  /** The SDK server; connect it to a transport (`await handle.server.connect(transport)`). */
  server: Server;
  /** Ends the turn the server opened, if one is still open (call after the transport closed). */
  endOpenTurn(): Promise<void>;
}

function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

function describeCall(name: string, input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const subject = [fields.path, fields.command, fields.name].find((value) => typeof value === 'string');
  const label = `mcp ${name}${subject === undefined ? '' : ` ${String(subject)}`}`;
  return label.length > 200 ? `${label.slice(0, 199)}…` : label;
}

function inputJsonSchema(schema: z.ZodType): Tool['inputSchema'] {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return { ...json, type: 'object' } as Tool['inputSchema'];
}

/**
 * Builds an MCP server (official TypeScript SDK) that serves a session's wrapped tools plus
 * `rewind`, `redo` and `rollback_points`. Every `tools/call` is one turn, unless the request's `_meta`
 * carries `"safeturn/turn": "<client id>"`: calls with the same id share one turn, which ends when
 * another id (or a call without one) arrives, when a call sets `"safeturn/endTurn": true`, before a
 * `rewind` or `redo`, and on close. `"safeturn/label"` sets the turn's label. Calls run one at a time.
 *
 * Failures the model should act on (guard refusals, paths outside the workspace, invalid input,
 * rewind conflicts) come back as `isError: true` results whose text starts with the code and whose
 * `structuredContent` is `{ ok: false, error: { code, message, data } }`.
 *
 * @returns the server (not yet connected) and `endOpenTurn()`.
 * @example
 * ```ts
 * const session = await createSession({ workspace: '/path/to/project' });
 * const { server, endOpenTurn } = createMcpServer({ session });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: CreateMcpServerOptions): SafeturnMcpServer {
  const { session } = options;
  const tools: Record<string, AnyTool> =
    options.tools ?? createSessionTools(session, options.referenceTools ?? {});
  const control = createControlTools();
  const turns = new McpTurns(session);
  const queue = new PQueue({ concurrency: 1 });
  const server = new Server(
    { name: options.name ?? 'safeturn', version: packageVersion() },
    {
      capabilities: { tools: {} },
      instructions:
        'File tools guarded by safeturn: read a file before you edit or overwrite it. Every call is checkpointed; rollback_points lists turns and rewind undoes them.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...Object.entries(tools).map(([name, tool]) => ({
        name,
        description: tool.description,
        inputSchema: inputJsonSchema(tool.inputSchema),
        ...(tool.kind === 'read' ? { annotations: { readOnlyHint: true } } : {}),
      })),
      ...Object.entries(control).map(([name, tool]) => ({
        name,
        description: tool.description,
        inputSchema: inputJsonSchema(tool.inputSchema),
        ...(name === 'rollback_points' ? { annotations: { readOnlyHint: true } } : {}),
      })),
    ],
  }));

  const callTool = async (
    name: string,
    input: unknown,
    meta: unknown,
    abortSignal: AbortSignal,
  ): Promise<CallToolResult> => {
    // Cancelled while it waited for the calls before it: the client no longer wants it.
    if (abortSignal.aborted) return failureResult(failWith('ABORTED', `The ${name} call was cancelled.`));
    const controlTool = control[name as keyof typeof control];
    if (controlTool) {
      if (name === 'rewind' || name === 'redo') await turns.endOpen();
      return controlTool.run(session, input);
    }
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (!tool) return failureResult(failWith('UNKNOWN_TOOL', `No tool named ${JSON.stringify(name)}.`));
    const request = readTurnMeta(meta);
    let turnId: string | undefined;
    try {
      turnId = await turns.enter(request, describeCall(name, input));
      const result: unknown = await tool.execute(input, { root: session.root, abortSignal });
      return toCallToolResult(result, turnId);
    } catch (error) {
      if (!SafeturnError.isInstance(error)) options.log?.(`safeturn mcp: ${name} failed: ${String(error)}`);
      return errorResult(error, turnId);
    } finally {
      await turns.leave(request);
    }
  };

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    queue.add(() =>
      callTool(request.params.name, request.params.arguments, request.params._meta, extra.signal),
    ),
  );

  return { server, endOpenTurn: () => queue.add(() => turns.endOpen()) };
}
