import { z } from 'zod';

/** Default cap of a stored file, in bytes (10 MiB); larger changed files are recorded as skipped. */
export const defaultMaxFileBytes = 10 * 1024 * 1024;

const isIterable = (value: unknown): boolean =>
  Array.isArray(value) || (typeof value === 'object' && value !== null && Symbol.asyncIterator in value);

/** Schema of {@link OpenShadowRepoOptions} (the single source of truth for its defaults). */
export const openShadowRepoOptionsSchema = z.object({
  workspace: z
    .string()
    .min(1)
    .describe("The workspace directory; realpath'd on open. Need not be a git repository."),
  home: z.string().min(1).optional().describe("safeturn's home. Default: $SAFETURN_HOME, else ~/.safeturn."),
  baselinePaths: z
    .custom<string[] | AsyncIterable<string>>(
      isIterable,
      'baselinePaths must be an array or an async iterable of paths',
    )
    .optional()
    .describe(
      'Workspace-relative POSIX paths of the covered files; when given and no baseline exists yet, it is committed before open returns.',
    ),
  baselineLabel: z.string().max(10_000).default('baseline').describe('Label of the baseline commit.'),
  now: z
    .custom<() => number>((value) => typeof value === 'function', 'now must be a function')
    .default(() => Date.now)
    .describe('Clock in ms since the epoch, for commit times (inject a fixed clock in tests).'),
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(defaultMaxFileBytes)
    .describe('Larger files are skipped with reason too-large.'),
  lockTimeoutMs: z
    .number()
    .int()
    .nonnegative()
    .default(30_000)
    .describe('How long to wait for the repository lock.'),
  concurrency: z.number().int().min(1).max(256).default(16).describe('Files read and blobs written at once.'),
  abortSignal: z.custom<AbortSignal>((value) => value instanceof AbortSignal).optional(),
});

/** Options of `openShadowRepo`. */
export type OpenShadowRepoOptions = z.input<typeof openShadowRepoOptionsSchema>;
