import type { Session } from './session.js';
import type { ToolContext, ToolFailure, ToolKind } from './tool-types.js';

/** A path a tool call touches, resolved against the active root. */
export interface CallPath {
  /** As the model gave it. */
  input: string;
  root: string;
  absolute: string;
  relative: string;
  /** `root NUL relative`: the guard's and the path queue's key. */
  key: string;
}

/** One tool call as the middleware chain sees it. */
export interface ToolCall {
  session: Session;
  toolName: string;
  kind: ToolKind;
  input: unknown;
  paths: CallPath[];
  context: ToolContext;
  /**
   * Lines for the model that middleware adds (e.g. a file whose pre-image could not be stored);
   * `wrapTools` appends them to a result's `output` and lists them in `result.warnings`.
   */
  warnings: string[];
}

/**
 * A middleware: an object of optional hooks, applied in this documented order —
 * `beforeCall` hooks in array order (the first to return a {@link ToolFailure} stops the call,
 * nothing is written), then `wrapExecute` hooks nested with the first outermost, then the tool,
 * then `afterCall` hooks in reverse array order (they also run when the tool threw).
 * The built-in chain is: sandbox, guard, checkpoint, bash staging, then the host's own middleware.
 */
export interface ToolMiddleware {
  /** Name shown in errors. */
  name: string;
  beforeCall?(call: ToolCall): Promise<ToolFailure | undefined>;
  wrapExecute?(call: ToolCall, next: () => Promise<unknown>): Promise<unknown>;
  afterCall?(call: ToolCall, outcome: { result?: unknown; error?: unknown }): Promise<void>;
}
