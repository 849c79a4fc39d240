import { type FunctionTool, tool } from '@openai/agents';
import { z } from 'zod';
import type { SafeturnTool } from '../loop/tool-types.js';
import { toModelText } from './model-text.js';
import { rootOf, type ToolRootSource } from './tool-root.js';

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of any input and output type.
type AnyTool = SafeturnTool<any, any>;
/** A function tool made from a safeturn tool: its result is the text the model reads. */
// biome-ignore lint/suspicious/noExplicitAny: parameters are a zod object or a JSON schema, per tool.
export type SafeturnFunctionTool = FunctionTool<unknown, any, string>;

/** Options of {@link toOpenAiAgentsTools}: the wrapped tools and where their root comes from. */
export type OpenAiAgentsToolsOptions = ToolRootSource & {
  /** Wrapped tools (`wrapTools()` / `createSessionTools()`), keyed by the name the model sees. */
  tools: Record<string, AnyTool>;
};

/**
 * Turns wrapped safeturn tools into OpenAI Agents SDK function tools (`tool()` from
 * `@openai/agents`). A tool whose input schema is a zod object is a strict tool with that schema
 * (the SDK sends optional fields as nullable and parses the arguments with zod); any other schema
 * is sent as JSON Schema, non-strict, and the wrapped tool validates the input. `execute(input,
 * runContext, details)` calls the wrapped tool with `{ root, toolCallId: details.toolCall.callId,
 * abortSignal: details.signal }` and returns the text the model reads: `output` on success,
 * `CODE: message` on a failure (guard refusal, invalid input, ...).
 *
 * Calls must run inside a turn: `session.beginTurn()` before `run()`, `session.endTurn()` after.
 *
 * @returns function tools in the order of `tools`, for `new Agent({ tools })`.
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { toOpenAiAgentsTools } from 'safeturn/openai-agents';
 * const agent = new Agent({ name: 'coder', tools: toOpenAiAgentsTools({ tools: createSessionTools(session), session }) });
 * await session.beginTurn({ label: prompt });
 * await run(agent, prompt);
 * await session.endTurn();
 * ```
 */
export function toOpenAiAgentsTools(options: OpenAiAgentsToolsOptions): SafeturnFunctionTool[] {
  return Object.entries(options.tools).map(([name, safeturnTool]) => {
    const execute = async (
      input: unknown,
      _runContext: unknown,
      details?: { toolCall?: { callId: string }; signal?: AbortSignal },
    ): Promise<string> => {
      const result: unknown = await safeturnTool.execute(input, {
        root: rootOf(options),
        ...(details?.toolCall?.callId ? { toolCallId: details.toolCall.callId } : {}),
        ...(details?.signal ? { abortSignal: details.signal } : {}),
      });
      return toModelText(result).text;
    };
    const schema = safeturnTool.inputSchema;
    if (schema instanceof z.ZodObject) {
      return tool({ name, description: safeturnTool.description, parameters: schema, execute });
    }
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as unknown as {
      properties?: Record<string, never>;
      required?: string[];
    };
    return tool({
      name,
      description: safeturnTool.description,
      parameters: {
        type: 'object',
        properties: json.properties ?? {},
        required: json.required ?? [],
        additionalProperties: true,
      },
      strict: false,
      execute,
    });
  });
}
