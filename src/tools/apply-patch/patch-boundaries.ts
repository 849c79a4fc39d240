import { PatchParseError } from './patch-parse-error.js';

/** One line of the patch text with its 1-based number in the text as given. */
export interface SourceLine {
  text: string;
  number: number;
}

/** The lines between `*** Begin Patch` and `*** End Patch`, and the heredoc's `cd DIR`. */
export interface PatchBody {
  lines: SourceLine[];
  /** 1-based line number of `*** End Patch`. */
  endLine: number;
  workdir?: string;
}

const BEGIN_PATCH = /^\*\*\*\s*begin\s+patch$/i;
const END_PATCH = /^\*\*\*\s*end\s+patch$/i;
// `apply_patch <<'EOF'`, `<<EOF`, `<<"EOF"`, `cd DIR && apply_patch <<'EOF'` (GPT-style shell wrappers).
const HEREDOC_START =
  /^(?:cd\s+(?<dir>'[^']*'|"[^"]*"|[^\s'"&;|<>]+)\s*&&\s*(?:apply_patch|applypatch)\s*|(?:apply_patch|applypatch)\s*)?<<-?\s*(?<quote>['"]?)(?<delimiter>[A-Za-z_][A-Za-z0-9_]*)\k<quote>$/;

/** True for `*** Begin Patch` with any stray white space or letter case. */
export function isBeginPatch(text: string): boolean {
  return BEGIN_PATCH.test(text.trim());
}

/** True for `*** End Patch` with any stray white space or letter case. */
export function isEndPatch(text: string): boolean {
  return END_PATCH.test(text.trim());
}

function splitLines(text: string): SourceLine[] {
  const raw = text.replace(/^\uFEFF/, '').split('\n');
  return raw.map((line, index) => ({
    text: line.endsWith('\r') ? line.slice(0, -1) : line,
    number: index + 1,
  }));
}

function trimBlankEnds(lines: SourceLine[]): SourceLine[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.text.trim() === '') start += 1;
  while (end > start && lines[end - 1]!.text.trim() === '') end -= 1;
  return lines.slice(start, end);
}

function unquote(word: string): string {
  return (word.startsWith("'") && word.endsWith("'")) || (word.startsWith('"') && word.endsWith('"'))
    ? word.slice(1, -1)
    : word;
}

/**
 * Splits patch text into lines, strips surrounding blank lines and a heredoc wrapper, and
 * checks the `*** Begin Patch` / `*** End Patch` markers.
 *
 * @throws PatchParseError `PATCH_PARSE` naming the line of a missing marker or unclosed heredoc.
 */
export function extractPatchBody(text: string): PatchBody {
  let lines = trimBlankEnds(splitLines(text));
  const first = lines[0];
  if (first === undefined)
    throw new PatchParseError(1, "the patch is empty; it must start with '*** Begin Patch'.");
  let workdir: string | undefined;
  if (!isBeginPatch(first.text)) {
    const heredoc = HEREDOC_START.exec(first.text.trim());
    if (heredoc === null) {
      throw new PatchParseError(
        first.number,
        `the first line of the patch must be '*** Begin Patch', got ${JSON.stringify(first.text)}.`,
      );
    }
    const last = lines.at(-1)!;
    if (lines.length < 2 || last.text.trim() !== heredoc.groups!.delimiter) {
      throw new PatchParseError(
        last.number,
        `the heredoc opened on line ${first.number} is not closed by ${JSON.stringify(heredoc.groups!.delimiter)}.`,
      );
    }
    if (heredoc.groups!.dir !== undefined) workdir = unquote(heredoc.groups!.dir);
    lines = trimBlankEnds(lines.slice(1, -1));
    const inner = lines[0];
    if (inner === undefined || !isBeginPatch(inner.text)) {
      throw new PatchParseError(
        inner?.number ?? first.number + 1,
        `the first line of the patch must be '*** Begin Patch', got ${JSON.stringify(inner?.text ?? '')}.`,
      );
    }
  }
  const last = lines.at(-1)!;
  if (lines.length < 2 || !isEndPatch(last.text)) {
    throw new PatchParseError(
      last.number,
      `the last line of the patch must be '*** End Patch', got ${JSON.stringify(last.text)}.`,
    );
  }
  const body: PatchBody = { lines: lines.slice(1, -1), endLine: last.number };
  if (workdir !== undefined) body.workdir = workdir;
  return body;
}
