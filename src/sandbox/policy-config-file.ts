import { readFile } from 'node:fs/promises';
import { type SandboxPolicyInput, SandboxPolicyInputSchema } from './policy-schema.js';
import { SandboxPolicyError } from './sandbox-policy-error.js';

/** Formats a zod issue path as `sandbox.denyRead[2]`. */
export function formatIssuePath(prefix: string, issuePath: readonly PropertyKey[]): string {
  let text = prefix;
  for (const key of issuePath)
    text += typeof key === 'number' ? `[${key}]` : `${text === '' ? '' : '.'}${String(key)}`;
  return text === '' ? '(root)' : text;
}

/**
 * Validates a partial policy from outside with {@link SandboxPolicyInputSchema}.
 *
 * @param value - the untrusted value.
 * @param where - the name of its source for error messages, e.g. `sandbox` or `overrides`.
 * @param file - the config file it came from, if any.
 * @throws SandboxPolicyError `SANDBOX_POLICY` naming the first invalid field.
 */
export function parsePolicyInput(value: unknown, where: string, file?: string): SandboxPolicyInput {
  const parsed = SandboxPolicyInputSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = formatIssuePath(where, issue.path);
  const location = file === undefined ? '' : ` in ${file}`;
  throw new SandboxPolicyError(field, `Invalid sandbox policy${location}: ${field}: ${issue.message}.`, {
    data: {
      ...(file === undefined ? {} : { file }),
      issues: parsed.error.issues.map((item) => ({ ...item })),
    },
    cause: parsed.error,
  });
}

/**
 * Reads the `sandbox` section of a config file (`{ "sandbox": { ... } }`).
 *
 * @param file - absolute path of the file.
 * @param required - true for an explicit path: a missing file is then an error.
 * @returns the validated partial policy, or undefined when an optional file is absent or has no `sandbox` key.
 * @throws SandboxPolicyError `SANDBOX_POLICY` for unreadable or invalid JSON, or an invalid field.
 */
export async function readPolicyConfigFile(
  file: string,
  required: boolean,
): Promise<SandboxPolicyInput | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !required) return undefined;
    throw new SandboxPolicyError(
      '(file)',
      `Cannot read the sandbox config file ${file}: ${(error as Error).message}.`,
      {
        data: { file },
        cause: error,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SandboxPolicyError(
      '(file)',
      `The sandbox config file ${file} is not valid JSON: ${(error as Error).message}.`,
      {
        data: { file },
        cause: error,
      },
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SandboxPolicyError('(root)', `The sandbox config file ${file} must hold a JSON object.`, {
      data: { file },
    });
  }
  if (!('sandbox' in json)) return undefined;
  return parsePolicyInput((json as { sandbox: unknown }).sandbox, 'sandbox', file);
}
