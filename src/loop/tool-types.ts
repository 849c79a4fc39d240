import type { z } from 'zod';

/**
 * What a tool does to files, which decides the layers put in front of it:
 * `read` records a guard baseline; `write`, `edit` and `apply_patch` go through the guard and
 * the checkpoint; `bash` is staged and diffed (and sandboxed); `other` passes through untouched.
 */
export type ToolKind = 'read' | 'write' | 'edit' | 'apply_patch' | 'bash' | 'other';

/** What a tool's `execute` receives besides its input. */
export interface ToolContext {
  /**
   * Absolute, realpath'd directory the tool resolves paths against: the session's workspace,
   * or the active worktree while one is active.
   */
  root: string;
  /** Id of the tool call, when the host has one. */
  toolCallId?: string;
  abortSignal?: AbortSignal;
  /**
   * Set by `wrapTools()` for `bash` tools when the session has a sandbox policy: turns the argv a
   * shell tool is about to spawn into the sandboxed command (`{ file, args, env, cleanup }`).
   * A shell tool must spawn what this returns, never the raw argv.
   */
  prepareCommand?: (argv: string[]) => Promise<PreparedCommand>;
}

/** A command ready to spawn with execa: argv arrays, never a shell string. */
export interface PreparedCommand {
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Called after the process ended (removes sandbox mount stubs and temp dirs); its result is reported. */
  cleanup?: () => Promise<unknown>;
}

/**
 * The neutral tool shape safeturn takes and returns: a description, a zod input schema and
 * an `execute` function. `kind` and `paths` tell `wrapTools()` which layers apply and which
 * files a call touches (root-relative or absolute inside the root).
 */
export interface SafeturnTool<Input = unknown, Output = unknown> {
  description: string;
  inputSchema: z.ZodType<Input>;
  /** @default 'other' */
  kind?: ToolKind;
  /**
   * The paths one call touches. For `read`, `write` and `edit` the default is `[input.path]`.
   * For `apply_patch` it lists every file the patch adds, updates, deletes or moves (both ends).
   */
  paths?: (input: Input, context: ToolContext) => string[] | Promise<string[]>;
  execute(input: Input, context: ToolContext): Promise<Output>;
}

/** A successful tool result: text for the model, plus structured data for a host. */
export interface ToolSuccess<Data = unknown> {
  ok: true;
  output: string;
  data?: Data;
}

/**
 * A failed tool call the model should read and act on (guard refusal, patch that does not
 * apply, invalid input). `error.code` is a stable {@link SafeturnErrorCode}.
 */
export interface ToolFailure {
  ok: false;
  error: { code: string; message: string; data?: Record<string, unknown> };
}

/** What the reference tools return. */
export type ToolResult<Data = unknown> = ToolSuccess<Data> | ToolFailure;
