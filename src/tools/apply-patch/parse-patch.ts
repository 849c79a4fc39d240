import { extractPatchBody, type SourceLine } from './patch-boundaries.js';
import { PatchParseError } from './patch-parse-error.js';
import type { ParsedPatch, PatchChunk, PatchHunk, UpdateFileHunk } from './patch-types.js';

const ADD_FILE = /^\*\*\*\s*add\s+file\s*:\s*(.*)$/i;
const DELETE_FILE = /^\*\*\*\s*delete\s+file\s*:\s*(.*)$/i;
const UPDATE_FILE = /^\*\*\*\s*update\s+file\s*:\s*(.*)$/i;
const MOVE_TO = /^\*\*\*\s*move\s+to\s*:\s*(.*)$/i;
const END_OF_FILE = /^\*\*\*\s*end\s+of\s+file$/i;
// A unified-diff range (`@@ -12,7 +12,8 @@ name`) carries no usable context except the text after it.
const UNIFIED_RANGE = /^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?(.*)$/;
const VALID_HEADERS = "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'";

interface Cursor {
  lines: SourceLine[];
  index: number;
  workdir: string | undefined;
}

function headerPath(match: RegExpExecArray, line: SourceLine, cursor: Cursor): string {
  const raw = match[1]!.trim();
  if (raw === '')
    throw new PatchParseError(line.number, `the header ${JSON.stringify(line.text.trim())} names no file.`);
  // Plain concatenation, not path.join: a '..' must stay visible to the path checks.
  return cursor.workdir === undefined || raw.startsWith('/')
    ? raw
    : `${cursor.workdir.replace(/\/+$/, '')}/${raw}`;
}

/** `@@`, `@@ context` or `@@ -1,2 +1,3 @@ context`; returns the context text ('' for none), or undefined. */
function chunkHeader(text: string): string | undefined {
  if (!text.startsWith('@@')) return undefined;
  const rest = text.slice(2);
  if (rest.trim() === '') return '';
  if (!/^\s/.test(rest)) return undefined;
  const context = rest.slice(1).trimEnd();
  const range = UNIFIED_RANGE.exec(context.trim());
  return range === null ? context : range[1]!.trimEnd();
}

function parseChunk(cursor: Cursor, isFirst: boolean): PatchChunk {
  const start = cursor.lines[cursor.index]!;
  const chunk: PatchChunk = {
    contexts: [],
    oldLines: [],
    newLines: [],
    changes: [],
    isEndOfFile: false,
    linesAdded: 0,
    linesRemoved: 0,
    line: start.number,
  };
  let headers = 0;
  for (let line = cursor.lines[cursor.index]; line !== undefined; line = cursor.lines[cursor.index]) {
    const context = chunkHeader(line.text);
    if (context === undefined) break;
    if (context !== '') chunk.contexts.push(context);
    headers += 1;
    cursor.index += 1;
  }
  if (headers === 0 && !isFirst) {
    throw new PatchParseError(
      start.number,
      `expected '@@' to start the next chunk, got ${JSON.stringify(start.text)}. Every line of a chunk starts with ' ' (context), '+' (added) or '-' (removed).`,
    );
  }
  let count = 0;
  for (let line = cursor.lines[cursor.index]; line !== undefined; line = cursor.lines[cursor.index]) {
    const text = line.text;
    if (text.startsWith('*') && END_OF_FILE.test(text.trim())) {
      if (count === 0)
        throw new PatchParseError(line.number, "the chunk has no lines before '*** End of File'.");
      chunk.isEndOfFile = true;
      cursor.index += 1;
      break;
    }
    const prefix = text[0];
    if (prefix === undefined || prefix === ' ') {
      // An empty line is an empty context line (models often drop the space).
      chunk.oldLines.push(text.slice(1));
      chunk.newLines.push(text.slice(1));
      chunk.changes.push({ kind: 'context', text: text.slice(1) });
    } else if (prefix === '+') {
      chunk.newLines.push(text.slice(1));
      chunk.changes.push({ kind: 'add', text: text.slice(1) });
      chunk.linesAdded += 1;
    } else if (prefix === '-') {
      chunk.oldLines.push(text.slice(1));
      chunk.changes.push({ kind: 'remove', text: text.slice(1) });
      chunk.linesRemoved += 1;
    } else if (count === 0 && isHunkBoundary(text)) {
      break;
    } else if (count === 0) {
      throw new PatchParseError(
        line.number,
        `unexpected line ${JSON.stringify(text)} in a chunk. Every line of a chunk starts with ' ' (context), '+' (added) or '-' (removed).`,
      );
    } else {
      break;
    }
    count += 1;
    cursor.index += 1;
  }
  if (count === 0) throw new PatchParseError(start.number, 'the chunk has no lines.');
  return chunk;
}

function skipBlankLines(cursor: Cursor): void {
  while (cursor.lines[cursor.index]?.text.trim() === '') cursor.index += 1;
}

/** A line that ends an Update hunk: a `*` line, or a file header with stray leading spaces. */
function isHunkBoundary(text: string): boolean {
  const trimmed = text.trim();
  return text.startsWith('*') || [ADD_FILE, DELETE_FILE, UPDATE_FILE].some((header) => header.test(trimmed));
}

/**
 * Skips blank lines before a chunk. White-space-only lines are kept when chunk lines follow
 * without an `@@`: there, ' ' is an empty context line.
 */
function skipSeparatorLines(cursor: Cursor): void {
  let next = cursor.index;
  while (cursor.lines[next]?.text.trim() === '') next += 1;
  const line = cursor.lines[next];
  if (line === undefined || line.text.startsWith('@@') || isHunkBoundary(line.text)) {
    cursor.index = next;
    return;
  }
  while (cursor.lines[cursor.index]?.text === '') cursor.index += 1;
}

function parseUpdate(cursor: Cursor, header: SourceLine, filePath: string): UpdateFileHunk {
  const hunk: UpdateFileHunk = { type: 'update', path: filePath, chunks: [], line: header.number };
  const moveLine = cursor.lines[cursor.index];
  const move = moveLine === undefined ? null : MOVE_TO.exec(moveLine.text.trim());
  if (moveLine !== undefined && move !== null) {
    hunk.movePath = headerPath(move, moveLine, cursor);
    cursor.index += 1;
  }
  for (;;) {
    skipSeparatorLines(cursor);
    const line = cursor.lines[cursor.index];
    if (line === undefined || isHunkBoundary(line.text)) break;
    hunk.chunks.push(parseChunk(cursor, hunk.chunks.length === 0));
  }
  if (hunk.chunks.length === 0 && hunk.movePath === undefined) {
    throw new PatchParseError(
      header.number,
      `the Update File hunk for ${JSON.stringify(filePath)} has no chunks.`,
    );
  }
  return hunk;
}

function parseHunk(cursor: Cursor, previous: PatchHunk | undefined): PatchHunk {
  const line = cursor.lines[cursor.index]!;
  const text = line.text.trim();
  cursor.index += 1;
  const add = ADD_FILE.exec(text);
  if (add !== null) {
    const lines: string[] = [];
    for (
      let next = cursor.lines[cursor.index];
      next?.text.startsWith('+');
      next = cursor.lines[cursor.index]
    ) {
      lines.push(next.text.slice(1));
      cursor.index += 1;
    }
    return { type: 'add', path: headerPath(add, line, cursor), lines, line: line.number };
  }
  const remove = DELETE_FILE.exec(text);
  if (remove !== null) return { type: 'delete', path: headerPath(remove, line, cursor), line: line.number };
  const update = UPDATE_FILE.exec(text);
  if (update !== null) return parseUpdate(cursor, line, headerPath(update, line, cursor));
  if (previous?.type === 'add' && !text.startsWith('***')) {
    throw new PatchParseError(
      line.number,
      `${JSON.stringify(line.text)} is not part of the added file ${JSON.stringify(previous.path)}: every line of an added file starts with '+' (a lone '+' for an empty line).`,
    );
  }
  throw new PatchParseError(
    line.number,
    `${JSON.stringify(text)} is not a valid hunk header. Valid hunk headers: ${VALID_HEADERS}.`,
  );
}

/**
 * Parses a Codex-style patch (`*** Begin Patch` ... `*** End Patch`) into typed hunks, as
 * leniently as codex-rs/apply-patch: surrounding white space, stray spaces and letter case in
 * marker lines, a heredoc wrapper (`apply_patch <<'EOF'` ... `EOF`, also after `cd DIR &&`,
 * whose DIR is joined onto every path), CRLF patch text, a first chunk without `@@`, stacked
 * `@@` headers, unified-diff `@@ -1,2 +1,3 @@` ranges (ignored), blank lines between hunks.
 * Nothing is read from disk.
 *
 * @param text - the patch as the model or host gave it.
 * @returns the hunks in patch order, and the heredoc's `cd` directory if any.
 * @throws PatchParseError `PATCH_PARSE` with `line` (1-based, in `text`) for a malformed patch.
 * @example
 * ```ts
 * const { hunks } = parsePatch('*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch');
 * // hunks[0] = { type: 'add', path: 'hello.txt', lines: ['hi'], line: 2 }
 * ```
 */
export function parsePatch(text: string): ParsedPatch {
  const body = extractPatchBody(text);
  const cursor: Cursor = { lines: body.lines, index: 0, workdir: body.workdir };
  const hunks: PatchHunk[] = [];
  for (;;) {
    skipBlankLines(cursor);
    if (cursor.index >= cursor.lines.length) break;
    hunks.push(parseHunk(cursor, hunks.at(-1)));
  }
  if (hunks.length === 0)
    throw new PatchParseError(body.endLine, 'the patch has no Add, Delete or Update File hunk.');
  const parsed: ParsedPatch = { hunks };
  if (body.workdir !== undefined) parsed.workdir = body.workdir;
  return parsed;
}
