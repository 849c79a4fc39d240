import { SafeturnError } from '../errors/safeturn-error.js';
import type { ToolFailure } from './tool-types.js';

/** Turns an error into the {@link ToolFailure} a model reads. Safeturn errors keep their code and data. */
export function toolFailure(error: unknown): ToolFailure {
  if (SafeturnError.isInstance(error)) {
    return { ok: false, error: { code: error.code, message: error.message, data: error.data } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { code: 'TOOL_FAILED', message } };
}

/** Builds a {@link ToolFailure} from a code and a message. */
export function failWith(code: string, message: string, data?: Record<string, unknown>): ToolFailure {
  return { ok: false, error: { code, message, ...(data ? { data } : {}) } };
}

/** True for a {@link ToolFailure} (`{ ok: false, error: { code, message } }`). */
export function isToolFailure(value: unknown): value is ToolFailure {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { error?: { code?: unknown } }).error?.code === 'string'
  );
}
