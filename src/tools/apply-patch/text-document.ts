import { PatchApplyError } from './patch-apply-error.js';

/** One line of a text file and the line ending that followed it ('' only for a last line without one). */
export interface TextLine {
  text: string;
  eol: '' | '\n' | '\r\n';
}

/** A UTF-8 text file split into lines, with what is needed to write it back byte for byte. */
export interface TextDocument {
  /** The file started with a UTF-8 byte order mark. */
  bom: boolean;
  lines: TextLine[];
  /** Line ending for new lines: CRLF when most lines end with CRLF, else LF. */
  eol: '\n' | '\r\n';
  /** The file ends with a line ending (an empty file counts as ending with one). */
  finalNewline: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes a file's bytes into lines, keeping each line's own ending.
 *
 * @param bytes - the file content.
 * @param filePath - the root-relative path, for the error message.
 * @throws PatchApplyError `PATCH_APPLY` when the bytes are not valid UTF-8.
 */
export function decodeTextDocument(bytes: Uint8Array, filePath: string): TextDocument {
  let content: string;
  try {
    content = decoder.decode(bytes);
  } catch (error) {
    throw new PatchApplyError(`Cannot patch ${filePath}: it is not UTF-8 text.`, {
      data: { path: filePath },
      cause: error,
    });
  }
  const bom = content.startsWith('\uFEFF');
  if (bom) content = content.slice(1);
  const lines: TextLine[] = [];
  let crlf = 0;
  let start = 0;
  for (let newline = content.indexOf('\n'); newline !== -1; newline = content.indexOf('\n', start)) {
    const isCrlf = newline > start && content[newline - 1] === '\r';
    if (isCrlf) crlf += 1;
    lines.push({ text: content.slice(start, isCrlf ? newline - 1 : newline), eol: isCrlf ? '\r\n' : '\n' });
    start = newline + 1;
  }
  if (start < content.length) lines.push({ text: content.slice(start), eol: '' });
  const endings = lines.filter((line) => line.eol !== '').length;
  return {
    bom,
    lines,
    eol: crlf * 2 > endings ? '\r\n' : '\n',
    finalNewline: content === '' || content.endsWith('\n'),
  };
}

/** Encodes a document back to bytes: BOM if it had one, each line followed by its own ending. */
export function encodeTextDocument(document: TextDocument): Uint8Array {
  let content = document.bom ? '\uFEFF' : '';
  for (const line of document.lines) content += line.text + line.eol;
  return encoder.encode(content);
}

/** Encodes the lines of an added file: LF after every line, no BOM. */
export function encodeAddedLines(lines: string[]): Uint8Array {
  return encoder.encode(lines.map((line) => `${line}\n`).join(''));
}
