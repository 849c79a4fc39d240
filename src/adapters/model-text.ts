import { isToolFailure } from '../loop/tool-failure.js';

/** What a model reads for a safeturn tool result. */
export interface ModelText {
  /** True for a `ToolFailure` (guard refusal, invalid input, patch that does not apply...). */
  isError: boolean;
  /** `output` of a success; `CODE: message` of a failure; JSON of anything else. */
  text: string;
}

/**
 * The text a model should read for what a wrapped tool returned: a success's `output`, a
 * failure's `CODE: message` (the code first, so the model can act on it), else JSON.
 */
export function toModelText(result: unknown): ModelText {
  if (isToolFailure(result)) return { isError: true, text: `${result.error.code}: ${result.error.message}` };
  if (typeof result === 'string') return { isError: false, text: result };
  if (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { output?: unknown }).output === 'string'
  ) {
    return { isError: false, text: (result as { output: string }).output };
  }
  return {
    isError: false,
    text:
      JSON.stringify(result, (_key, value: unknown) =>
        typeof value === 'bigint' ? value.toString() : value,
      ) ?? 'null',
  };
}
