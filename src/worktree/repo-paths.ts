import path from 'node:path';

/**
 * Maps a repository-relative POSIX path to the workspace-relative form (`prefix` is the
 * workspace's place in the repository, `''` or ending in `/`). Paths outside the workspace come
 * back starting with `../`.
 */
export function toWorkspaceRelative(repoRelative: string, prefix: string): string {
  if (repoRelative.startsWith(prefix)) return repoRelative.slice(prefix.length);
  return path.posix.relative(`/${prefix}`, `/${repoRelative}`);
}

/** Whether a repository-relative path lies inside the workspace. */
export function isInWorkspace(repoRelative: string, prefix: string): boolean {
  return repoRelative.startsWith(prefix) && repoRelative.length > prefix.length;
}

/** Joins a repository-relative POSIX path onto a directory. */
export function joinRepoPath(directory: string, repoRelative: string): string {
  return path.join(directory, ...repoRelative.split('/'));
}
