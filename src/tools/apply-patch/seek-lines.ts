// Typographic characters models type as ASCII (and the other way round).
const PUNCTUATION: Record<string, string> = {
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u00A0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2004': ' ',
  '\u2005': ' ',
  '\u2006': ' ',
  '\u2007': ' ',
  '\u2008': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u205F': ' ',
  '\u3000': ' ',
};
const TYPOGRAPHIC = new RegExp(`[${Object.keys(PUNCTUATION).join('')}]`, 'g');

/** Trims a line and replaces curly quotes, dashes and odd spaces by their ASCII forms. */
export function normaliseLine(line: string): string {
  return line.trim().replace(TYPOGRAPHIC, (character) => PUNCTUATION[character] ?? character);
}

type Comparator = (line: string) => string;

/** The four match levels, strictest first. */
const LEVELS: Comparator[] = [(line) => line, (line) => line.trimEnd(), (line) => line.trim(), normaliseLine];

function matchesAt(lines: string[], pattern: string[], at: number, compare: Comparator): boolean {
  for (let offset = 0; offset < pattern.length; offset += 1) {
    if (compare(lines[at + offset]!) !== compare(pattern[offset]!)) return false;
  }
  return true;
}

/**
 * Finds `pattern` as consecutive lines of `lines` at or after `start`, trying each level over
 * every position before the next, looser one: exact; ignoring trailing white space; ignoring
 * leading and trailing white space; with typographic punctuation normalised. With `atEnd` the
 * position that ends the file is tried first.
 *
 * @returns the 0-based index of the first matched line, or undefined.
 */
export function seekLines(
  lines: string[],
  pattern: string[],
  start: number,
  atEnd: boolean,
): number | undefined {
  if (pattern.length === 0) return start;
  const last = lines.length - pattern.length;
  if (last < start) return undefined;
  if (atEnd) {
    for (const compare of LEVELS) if (matchesAt(lines, pattern, last, compare)) return last;
  }
  for (const compare of LEVELS) {
    for (let at = start; at <= last; at += 1) if (matchesAt(lines, pattern, at, compare)) return at;
  }
  return undefined;
}

/** A position where part of a chunk matches: 1-based line and how many of its lines match there. */
export interface CandidateLine {
  line: number;
  matchingLines: number;
}

const CANDIDATE_PATTERN_LINES = 20;

/**
 * The positions in the whole file where most lines of `pattern` match (normalised), best first:
 * the hint a model needs to fix a chunk that did not apply.
 *
 * @param limit - how many candidates to return.
 */
export function closestCandidates(lines: string[], pattern: string[], limit: number): CandidateLine[] {
  const wanted = pattern.slice(0, CANDIDATE_PATTERN_LINES).map(normaliseLine);
  if (wanted.every((line) => line === '')) return [];
  const normalised = lines.map(normaliseLine);
  const candidates: CandidateLine[] = [];
  for (let at = 0; at < normalised.length; at += 1) {
    let matchingLines = 0;
    for (let offset = 0; offset < wanted.length && at + offset < normalised.length; offset += 1) {
      const want = wanted[offset]!;
      if (want !== '' && normalised[at + offset] === want) matchingLines += 1;
    }
    if (matchingLines > 0) candidates.push({ line: at + 1, matchingLines });
  }
  candidates.sort((left, right) => right.matchingLines - left.matchingLines || left.line - right.line);
  return candidates.slice(0, limit);
}
