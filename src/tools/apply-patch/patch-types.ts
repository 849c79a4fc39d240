/** One line of a chunk: ` ` context, `+` added or `-` removed, without its prefix. */
export interface PatchLineChange {
  kind: 'context' | 'add' | 'remove';
  text: string;
}

/**
 * One chunk of an `*** Update File:` hunk: the lines it expects (`oldLines`) and the lines that
 * replace them (`newLines`), located after the `@@` header lines in `contexts`.
 */
export interface PatchChunk {
  /**
   * Text of each `@@ <context>` header of the chunk, in order (stacked headers narrow the
   * position step by step). Empty when the chunk starts with a bare `@@` or with no `@@` at all.
   */
  contexts: string[];
  /** Lines that must be in the file (` ` context and `-` removed lines), without their prefix. */
  oldLines: string[];
  /** Lines that replace them (` ` context and `+` added lines), without their prefix. */
  newLines: string[];
  /** The chunk's lines in order (what `oldLines` and `newLines` are made of). */
  changes: PatchLineChange[];
  /** True when the chunk ended with `*** End of File`: it is anchored at the end of the file. */
  isEndOfFile: boolean;
  /** Number of `+` lines. */
  linesAdded: number;
  /** Number of `-` lines. */
  linesRemoved: number;
  /** 1-based line number, in the text given to `parsePatch`, where the chunk starts. */
  line: number;
}

/** `*** Add File: <path>` followed by `+` lines: the whole new file. */
export interface AddFileHunk {
  type: 'add';
  /** The path as written in the patch (joined onto the heredoc's `cd DIR`, if any). */
  path: string;
  /** The file's lines without the `+`; the file gets a newline after each. */
  lines: string[];
  /** 1-based line number of the header in the text given to `parsePatch`. */
  line: number;
}

/** `*** Delete File: <path>`. */
export interface DeleteFileHunk {
  type: 'delete';
  /** The path as written in the patch (joined onto the heredoc's `cd DIR`, if any). */
  path: string;
  /** 1-based line number of the header in the text given to `parsePatch`. */
  line: number;
}

/** `*** Update File: <path>`, optionally `*** Move to: <path>`, then chunks. */
export interface UpdateFileHunk {
  type: 'update';
  /** The path as written in the patch (joined onto the heredoc's `cd DIR`, if any). */
  path: string;
  /** Target of `*** Move to:`, when the file is also renamed. */
  movePath?: string;
  /** The chunks, in file order. May be empty only for a pure Move. */
  chunks: PatchChunk[];
  /** 1-based line number of the header in the text given to `parsePatch`. */
  line: number;
}

/** One file operation of a patch. */
export type PatchHunk = AddFileHunk | DeleteFileHunk | UpdateFileHunk;

/** A parsed patch: its hunks in patch order. */
export interface ParsedPatch {
  hunks: PatchHunk[];
  /**
   * The `DIR` of a `cd DIR && apply_patch <<'EOF'` wrapper, already joined onto every hunk
   * path; absent without such a wrapper.
   */
  workdir?: string;
}
