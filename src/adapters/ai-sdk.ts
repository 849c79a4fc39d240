import { type Tool, tool } from 'ai';
import type { SafeturnTool } from '../loop/tool-types.js';
import { toModelText } from './model-text.js';
import { rootOf, type ToolRootSource } from './tool-root.js';

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of any input and output type.
type AnyTool = SafeturnTool<any, any>;

/** Options of {@link toAiSdkTools}: the wrapped tools and where their root comes from. */
export type AiSdkToolsOptions<Tools extends Record<string, AnyTool>> = ToolRootSource & {
  /** Wrapped tools (`wrapTools()` / `createSessionTools()`), keyed by the name the model sees. */
  tools: Tools;
};

/** The AI SDK tool for each safeturn tool: same input type, the safeturn result as output. */
export type AiSdkTools<Tools extends Record<string, AnyTool>> = {
  [Name in keyof Tools]: Tools[Name] extends SafeturnTool<infer Input, infer Output>
    ? Tool<Input, Output>
    : never;
};

/**
 * Turns wrapped safeturn tools into a Vercel AI SDK `ToolSet` (`tool()` from the `ai` package,
 * v6): the zod input schema is the tool's `inputSchema`, `execute(input, { toolCallId,
 * abortSignal })` calls the wrapped tool with `{ root, toolCallId, abortSignal }`, and
 * `toModelOutput` gives the model the result's text — `output` on success, `CODE: message` as
 * `error-text` on a failure (guard refusal, invalid input, ...). The step's tool result keeps the
 * whole `{ ok, output, data }` / `{ ok: false, error }` object for the host.
 *
 * Calls must run inside a turn: call `session.beginTurn()` before `generateText` / `streamText`
 * and `session.endTurn()` after. A call outside a turn throws `TURN_STATE` (the SDK reports it
 * as a tool error).
 *
 * @returns a record of AI SDK tools with the same names.
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { toAiSdkTools } from 'safeturn/ai-sdk';
 * const tools = toAiSdkTools({ tools: createSessionTools(session), session });
 * await session.beginTurn({ label: prompt });
 * await generateText({ model, tools, prompt, stopWhen: stepCountIs(20) });
 * await session.endTurn();
 * ```
 */
export function toAiSdkTools<Tools extends Record<string, AnyTool>>(
  options: AiSdkToolsOptions<Tools>,
): AiSdkTools<Tools> {
  const converted: Record<string, Tool> = {};
  for (const [name, safeturnTool] of Object.entries(options.tools)) {
    converted[name] = tool<unknown, unknown>({
      description: safeturnTool.description,
      inputSchema: safeturnTool.inputSchema,
      execute: (input, { toolCallId, abortSignal }) =>
        safeturnTool.execute(input, {
          root: rootOf(options),
          toolCallId,
          ...(abortSignal ? { abortSignal } : {}),
        }),
      toModelOutput: ({ output }) => {
        const { isError, text } = toModelText(output);
        return { type: isError ? 'error-text' : 'text', value: text };
      },
    });
  }
  return converted as AiSdkTools<Tools>;
}
