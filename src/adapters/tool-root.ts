/** Where an adapter takes the directory tools resolve paths against. */
export type ToolRootSource =
  /** A session (or anything with its `root` getter): follows the active worktree. */
  | { session: { readonly root: string }; root?: never }
  /** A getter returning the absolute, realpath'd root for each call. */
  | { root: () => string; session?: never };

/** Reads the root for one call from a {@link ToolRootSource}. */
export function rootOf(source: ToolRootSource): string {
  return source.session ? source.session.root : source.root();
}
