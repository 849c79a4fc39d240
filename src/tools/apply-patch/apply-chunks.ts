import { PatchApplyError } from './patch-apply-error.js';
import type { PatchChunk, PatchLineChange } from './patch-types.js';
import { closestCandidates, seekLines } from './seek-lines.js';
import type { TextDocument, TextLine } from './text-document.js';

interface Replacement {
  start: number;
  length: number;
  lines: TextLine[];
}

const EXPECTED_LINES_SHOWN = 3;
const CANDIDATES_SHOWN = 3;

function oldTexts(changes: PatchLineChange[]): string[] {
  return changes.filter((change) => change.kind !== 'add').map((change) => change.text);
}

function describeCandidates(lines: string[], pattern: string[]): { text: string; candidates: object[] } {
  const candidates = closestCandidates(lines, pattern, CANDIDATES_SHOWN);
  const total = Math.min(pattern.length, 20);
  const text =
    candidates.length === 0
      ? 'No line of the file resembles them.'
      : `Closest candidates: ${candidates.map((candidate) => `line ${candidate.line} (${candidate.matchingLines} of ${total} lines match)`).join(', ')}.`;
  return { text, candidates };
}

function notFound(
  filePath: string,
  chunk: PatchChunk,
  index: number,
  lines: string[],
  from: number,
  what: string[],
): never {
  const { text, candidates } = describeCandidates(lines, what);
  const expected = what.slice(0, EXPECTED_LINES_SHOWN);
  const shown = expected.map((line) => `    ${JSON.stringify(line)}`).join('\n');
  throw new PatchApplyError(
    `Chunk ${index + 1} (patch line ${chunk.line}) does not apply to ${filePath}: these lines were not found at or after line ${from + 1}:\n${shown}\n${text} Read the file again and send a patch whose context and '-' lines match it.`,
    {
      data: {
        path: filePath,
        chunk: index + 1,
        patchLine: chunk.line,
        searchedFrom: from + 1,
        expected,
        candidates,
      },
    },
  );
}

/** Emits the region's new lines: context lines keep the file's own bytes, added lines get `eol`. */
function replacementLines(
  changes: PatchLineChange[],
  original: TextLine[],
  start: number,
  eol: TextLine['eol'],
): TextLine[] {
  const lines: TextLine[] = [];
  let cursor = start;
  for (const change of changes) {
    if (change.kind === 'context') {
      lines.push({ ...original[cursor]! });
      cursor += 1;
    } else if (change.kind === 'remove') {
      cursor += 1;
    } else {
      lines.push({ text: change.text, eol });
    }
  }
  return lines;
}

function withoutTrailingBlankContext(changes: PatchLineChange[]): PatchLineChange[] {
  let end = changes.length;
  while (end > 0 && changes[end - 1]!.kind === 'context' && changes[end - 1]!.text === '') end -= 1;
  return changes.slice(0, end);
}

function locate(
  document: TextDocument,
  texts: string[],
  chunk: PatchChunk,
  index: number,
  from: number,
  filePath: string,
): Replacement {
  let position = from;
  for (const context of chunk.contexts) {
    const found = seekLines(texts, [context], position, false);
    if (found === undefined) notFound(filePath, chunk, index, texts, position, [context]);
    position = found + 1;
  }
  if (chunk.oldLines.length === 0) {
    // Only '+' lines: after the @@ context line if there is one, else at the end of the file.
    const start = chunk.contexts.length > 0 && !chunk.isEndOfFile ? position : texts.length;
    return { start, length: 0, lines: replacementLines(chunk.changes, document.lines, start, document.eol) };
  }
  let changes = chunk.changes;
  let found = seekLines(texts, oldTexts(changes), position, chunk.isEndOfFile);
  if (found === undefined) {
    // Blank lines before the next header are usually separators, not context: retry without them.
    const trimmed = withoutTrailingBlankContext(changes);
    if (trimmed.length !== changes.length) {
      changes = trimmed;
      found = seekLines(texts, oldTexts(changes), position, chunk.isEndOfFile);
    }
  }
  if (found === undefined) notFound(filePath, chunk, index, texts, position, chunk.oldLines);
  const length = oldTexts(changes).length;
  return { start: found, length, lines: replacementLines(changes, document.lines, found, document.eol) };
}

/**
 * Applies an Update File hunk's chunks to a document, all in memory. Each chunk is located
 * forward from the end of the previous one (its `@@` headers first, then its old lines).
 * The document keeps its BOM, line endings and final-newline state.
 *
 * @param document - the current file.
 * @param chunks - the hunk's chunks, in file order.
 * @param filePath - root-relative path, for error messages.
 * @returns the new document.
 * @throws PatchApplyError `PATCH_APPLY` for the first chunk that does not match, with the
 * chunk's first lines and the closest candidate line numbers.
 */
export function applyChunks(document: TextDocument, chunks: PatchChunk[], filePath: string): TextDocument {
  const texts = document.lines.map((line) => line.text);
  const replacements: Replacement[] = [];
  let position = 0;
  chunks.forEach((chunk, index) => {
    const replacement = locate(document, texts, chunk, index, position, filePath);
    replacements.push(replacement);
    position = replacement.start + replacement.length;
  });
  const lines = document.lines.map((line) => ({ ...line }));
  for (const replacement of replacements.toReversed()) {
    lines.splice(replacement.start, replacement.length, ...replacement.lines);
  }
  lines.forEach((line, index) => {
    const isLast = index === lines.length - 1;
    if (isLast) line.eol = document.finalNewline ? line.eol || document.eol : '';
    else if (line.eol === '') line.eol = document.eol;
  });
  return { ...document, lines };
}
