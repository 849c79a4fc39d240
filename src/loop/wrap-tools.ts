import { SafeturnError } from '../errors/safeturn-error.js';
import { UsageError } from '../errors/usage-error.js';
import {
  bashStagingMiddleware,
  checkpointMiddleware,
  guardMiddleware,
  isWriteKind,
  sandboxMiddleware,
} from './builtin-middleware.js';
import type { CallPath, ToolCall, ToolMiddleware } from './middleware.js';
import type { Session } from './session.js';
import { failWith, toolFailure } from './tool-failure.js';
import type { SafeturnTool, ToolContext, ToolFailure, ToolKind } from './tool-types.js';

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of any input and output type.
type AnyTool = SafeturnTool<any, any>;

/** How `wrapTools` treats one tool, when the tool itself does not say. */
export interface ToolBinding<Input = unknown> {
  kind: ToolKind;
  /** The paths one call touches. @default input.path for read, write and edit */
  paths?: (input: Input, context: ToolContext) => string[] | Promise<string[]>;
}

/** The input type of a tool. */
export type InputOf<T> = T extends SafeturnTool<infer Input, unknown> ? Input : never;

/** A wrapped tool: same input, and the output may also be a {@link ToolFailure}. */
export type WrappedTool<T extends AnyTool> =
  T extends SafeturnTool<infer Input, infer Output> ? SafeturnTool<Input, Output | ToolFailure> : never;

/** Options of {@link wrapTools}. */
export interface WrapToolsOptions<Tools extends Record<string, AnyTool>> {
  /** The session whose turns, guard and checkpoints the tools use. */
  session: Session;
  /** The tool registry, in the neutral shape `{ description, inputSchema, execute, kind?, paths? }`. */
  tools: Tools;
  /** Per-tool kind and path extraction, for tools that do not carry `kind` / `paths` themselves. */
  bindings?: { [Name in keyof Tools]?: ToolBinding<InputOf<Tools[Name]>> };
  /** Extra middleware, run after the built-in guard and checkpoint (see {@link ToolMiddleware}). */
  middleware?: ToolMiddleware[];
}

function defaultPaths(kind: ToolKind, input: unknown): string[] {
  if (kind !== 'read' && kind !== 'write' && kind !== 'edit') return [];
  const value = (input as { path?: unknown } | undefined)?.path;
  return typeof value === 'string' ? [value] : [];
}

const pathErrnos = new Set(['ENAMETOOLONG', 'ELOOP', 'ENOTDIR', 'EISDIR', 'ERR_FS_FILE_TOO_LARGE', 'EILSEQ']);

function isPathErrno(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && pathErrnos.has(code);
}

function pathErrnoFailure(name: string, error: unknown): ToolFailure {
  return failWith('PATH_INVALID', `${name}: ${(error as Error).message}`, {
    errno: (error as NodeJS.ErrnoException).code,
  });
}

function withWarnings(result: unknown, warnings: string[]): unknown {
  if (warnings.length === 0 || typeof result !== 'object' || result === null) return result;
  const copy: Record<string, unknown> = { ...(result as Record<string, unknown>), warnings };
  if (typeof copy.output === 'string') copy.output = `${copy.output}\n${warnings.join('\n')}`;
  return copy;
}

async function runChain(
  call: ToolCall,
  chain: ToolMiddleware[],
  execute: () => Promise<unknown>,
): Promise<unknown> {
  for (const middleware of chain) {
    const refusal = await middleware.beforeCall?.(call);
    if (refusal) return refusal;
  }
  let next = execute;
  for (const middleware of [...chain].reverse()) {
    const inner = next;
    const wrap = middleware.wrapExecute;
    if (wrap) next = () => wrap.call(middleware, call, inner);
  }
  let result: unknown;
  let error: unknown;
  try {
    result = await next();
  } catch (caught) {
    error = caught;
  }
  for (const middleware of [...chain].reverse()) {
    await middleware.afterCall?.(call, error === undefined ? { result } : { error });
  }
  if (error !== undefined) throw error;
  return result;
}

/**
 * Puts safeturn's layers in front of a tool registry: the read-before-edit guard and the
 * checkpoint for `write`, `edit` and `apply_patch` tools, read tracking for `read` tools, and
 * any extra middleware. Tools of kind `other` pass through untouched. Calls must happen inside a
 * turn (`session.beginTurn()`); writes to one path are serialised.
 *
 * Model-facing failures are returned, not thrown, as {@link ToolFailure}: invalid input
 * (`INVALID_INPUT`, from the zod schema), a path outside the workspace (`PATH_OUTSIDE_WORKSPACE`),
 * guard refusals (`GUARD_NEVER_READ`, `GUARD_STALE`). Host failures throw (e.g. `TURN_STATE`
 * when no turn is active, `STORE_IO` when the store cannot be written).
 *
 * @returns the same record of tools, each wrapped.
 * @example
 * ```ts
 * const tools = wrapTools({ session, tools: createReferenceTools() });
 * await session.beginTurn({ label: 'Fix the typo' });
 * await tools.read.execute({ path: 'README.md' }, { root: session.root });
 * await tools.edit.execute({ path: 'README.md', old_string: 'teh', new_string: 'the' }, { root: session.root });
 * await session.endTurn();
 * ```
 */
export function wrapTools<Tools extends Record<string, AnyTool>>(
  options: WrapToolsOptions<Tools>,
): { [Name in keyof Tools]: WrappedTool<Tools[Name]> } {
  const { session } = options;
  const chain = [
    sandboxMiddleware,
    guardMiddleware,
    checkpointMiddleware,
    bashStagingMiddleware,
    ...(options.middleware ?? []),
  ];
  const wrapped: Record<string, AnyTool> = {};
  for (const [name, tool] of Object.entries(options.tools)) {
    const binding = options.bindings?.[name as keyof Tools];
    const kind: ToolKind = tool.kind ?? binding?.kind ?? 'other';
    const pathsOf = (tool.paths ?? binding?.paths) as SafeturnTool['paths'];
    if (kind === 'other') {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      kind,
      async execute(rawInput: unknown, incoming?: Partial<ToolContext>): Promise<unknown> {
        if (!session.currentTurn()) {
          throw new UsageError(
            'TURN_STATE',
            `Tool ${name} was called outside a turn: call session.beginTurn() first.`,
          );
        }
        const parsed = tool.inputSchema.safeParse(rawInput);
        if (!parsed.success) {
          const detail = parsed.error.issues
            .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
            .join('; ');
          return failWith('INVALID_INPUT', `Invalid input for ${name}: ${detail}`, {
            issues: parsed.error.issues,
          });
        }
        const context: ToolContext = { ...incoming, root: session.root };
        let paths: CallPath[];
        try {
          const inputs = pathsOf ? await pathsOf(parsed.data, context) : defaultPaths(kind, parsed.data);
          paths = [];
          for (const input of inputs) paths.push({ input, ...(await session.resolve(input)) });
        } catch (error) {
          if (SafeturnError.isInstance(error)) return toolFailure(error);
          if (isPathErrno(error)) return pathErrnoFailure(name, error);
          throw error;
        }
        const call: ToolCall = {
          session,
          toolName: name,
          kind,
          input: parsed.data,
          paths,
          context,
          warnings: [],
        };
        const run = async () => {
          try {
            return withWarnings(
              await runChain(call, chain, () => tool.execute(parsed.data, context)),
              call.warnings,
            );
          } catch (error) {
            // A path the file system cannot take (too long, a symlink loop, a file too large to
            // read) is the model's input problem: a tool failure it can act on, not a host crash.
            if (isPathErrno(error)) return pathErrnoFailure(name, error);
            throw error;
          }
        };
        return isWriteKind(kind)
          ? session.pathQueue.run(
              paths.map((target) => target.key),
              run,
            )
          : run();
      },
    };
  }
  return wrapped as { [Name in keyof Tools]: WrappedTool<Tools[Name]> };
}
