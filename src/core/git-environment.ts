/**
 * Environment variables that would point git at another repository, index, object store or work
 * tree than the one a safeturn layer means (shadow repository, worktree plumbing). Removed before
 * every git call.
 */
export const REDIRECTING_GIT_VARIABLES: readonly string[] = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
];

/** A copy of `env` without the {@link REDIRECTING_GIT_VARIABLES} and without undefined values. */
export function withoutRedirectingGitVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !REDIRECTING_GIT_VARIABLES.includes(key)) result[key] = value;
  }
  return result;
}
