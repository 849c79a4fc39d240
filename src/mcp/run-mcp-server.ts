import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSession } from '../loop/create-session.js';
import type { Session } from '../loop/session.js';
import type { SandboxPolicyInput } from '../sandbox/policy-schema.js';
import type { ReferenceToolsOptions } from '../tools/reference-tools.js';
import { createMcpServer, type SafeturnMcpServer } from './create-mcp-server.js';

/** Options of {@link runMcpServer}. */
export interface RunMcpServerOptions {
  /** The project directory the tools work in. Must exist. */
  workspace: string;
  /** Resume (or start) this session. @default a new session */
  sessionId?: string;
  /** safeturn's data directory. @default $SAFETURN_HOME, else ~/.safeturn */
  home?: string;
  /**
   * Sandbox policy for `bash` (and the write tools): `true` the config file's policy or the defaults,
   * `false` none, an object a policy. @default the workspace config file's `sandbox` section, else none
   */
  sandbox?: SandboxPolicyInput | boolean;
  /** An explicit safeturn config file. @default <workspace>/safeturn.config.json */
  configPath?: string;
  /** Options of the reference tools (bash timeout, output cap). */
  referenceTools?: ReferenceToolsOptions;
  /** Where MCP messages come from. @default process.stdin */
  input?: Readable;
  /** Where MCP messages go; nothing else is written there. @default process.stdout */
  output?: Writable;
  /** Diagnostics, one line each (never stdout). @default nothing */
  log?: (line: string) => void;
  /** Stops the server (as if the input ended). */
  abortSignal?: AbortSignal;
}

/** A running stdio MCP server. */
export interface McpServerHandle {
  session: Session;
  server: SafeturnMcpServer['server'];
  /** Resolves once the server stopped (input ended, `close()`, abort) and the session was closed. */
  closed: Promise<void>;
  /** Stops the server, ends the open turn and closes the session. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a session on `workspace` and serves it over stdio (the `safeturn mcp` command): the wrapped
 * reference and worktree tools plus `rewind` and `rollback_points` (see {@link createMcpServer}).
 * The server stops when its input ends or `abortSignal` fires.
 *
 * @returns a handle; await `handle.closed` to run until the client disconnects.
 * @throws UsageError `INVALID_INPUT` (no such workspace, bad session id); SandboxUnavailableError
 *   `SANDBOX_UNAVAILABLE` when a sandbox was asked for and cannot run.
 * @example
 * ```ts
 * const handle = await runMcpServer({ workspace: process.cwd() });
 * await handle.closed;
 * ```
 */
export async function runMcpServer(options: RunMcpServerOptions): Promise<McpServerHandle> {
  const session = await createSession({
    workspace: options.workspace,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.home === undefined ? {} : { home: options.home }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    ...(options.configPath === undefined ? {} : { configPath: options.configPath }),
  });
  const { server, endOpenTurn } = createMcpServer({
    session,
    ...(options.referenceTools ? { referenceTools: options.referenceTools } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const input = options.input ?? process.stdin;
  const transport = new StdioServerTransport(input, options.output ?? process.stdout);
  let resolveClosed: () => void = () => {};
  let rejectClosed: (error: unknown) => void = () => {};
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  let stopping: Promise<void> | undefined;
  // Never rejects: a failure to stop rejects `closed`, which the caller awaits.
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      input.off('end', onInputEnd);
      input.off('close', onInputEnd);
      options.abortSignal?.removeEventListener('abort', onInputEnd);
      try {
        await server.close();
        await endOpenTurn();
        await session.close();
        resolveClosed();
      } catch (error) {
        rejectClosed(error);
      }
    })();
    return stopping;
  };
  const close = async (): Promise<void> => {
    await stop();
    await closed;
  };
  const onInputEnd = () => {
    void stop();
  };
  input.once('end', onInputEnd);
  input.once('close', onInputEnd);
  options.abortSignal?.addEventListener('abort', onInputEnd, { once: true });
  server.onerror = (error) => options.log?.(`safeturn mcp: ${error.message}`);
  await server.connect(transport);
  if (options.abortSignal?.aborted) void stop();
  options.log?.(`safeturn mcp: serving session ${session.id} for ${session.workspace}`);
  return { session, server, closed, close };
}
