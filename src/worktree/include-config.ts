import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';

/** The part of `safeturn.config.json` this layer reads; other keys are left to their layers. */
export const worktreeConfigSchema = z
  .object({
    worktree: z
      .object({
        include: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'gitignore-syntax patterns, relative to the workspace, of ignored files to carry into a worktree (e.g. ".env"). [] = carry no ignored file.',
          ),
      })
      .loose()
      .optional()
      .describe('Worktree layer settings.'),
  })
  .loose();

/**
 * Reads `worktree.include` from `<workspace>/safeturn.config.json`.
 *
 * @returns the patterns; `[]` when the file or the key is missing.
 * @throws UsageError `INVALID_CONFIG` when the file is not valid JSON or the key has the wrong shape.
 */
export async function readIncludePatterns(workspace: string): Promise<string[]> {
  const file = path.join(workspace, 'safeturn.config.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError('INVALID_CONFIG', `${file} is not valid JSON.`, { data: { file }, cause: error });
  }
  const parsed = worktreeConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      'INVALID_CONFIG',
      `${file}: worktree.include must be a list of patterns (${parsed.error.message}).`,
      {
        data: { file },
        cause: parsed.error,
      },
    );
  }
  return parsed.data.worktree?.include ?? [];
}

/**
 * A matcher for include patterns over repository-relative paths: a path matches when it lies in
 * the workspace (`prefix`) and the workspace-relative rest matches a pattern.
 */
export function includeMatcher(patterns: string[], prefix: string): (repoRelative: string) => boolean {
  const matcher = ignore().add(patterns);
  return (repoRelative) => {
    if (patterns.length === 0 || !repoRelative.startsWith(prefix)) return false;
    const relative = repoRelative.slice(prefix.length);
    return relative !== '' && matcher.ignores(relative);
  };
}
