const BOM = '\uFEFF';

/** How a text file is laid out on disk, so an edit can write it back the same way. */
export interface TextLayout {
  bom: boolean;
  /** `'\r\n'` only when every line break in the file is CRLF. */
  eol: '\n' | '\r\n';
}

/** Splits decoded file text into its layout and LF-normalised body. */
export function decodeLayout(text: string): { layout: TextLayout; body: string } {
  const bom = text.startsWith(BOM);
  const withoutBom = bom ? text.slice(1) : text;
  const lf = withoutBom.split('\n').length - 1;
  const crlf = withoutBom.split('\r\n').length - 1;
  const eol = lf > 0 && lf === crlf ? '\r\n' : '\n';
  return { layout: { bom, eol }, body: eol === '\r\n' ? withoutBom.replaceAll('\r\n', '\n') : withoutBom };
}

/** Puts an LF body back into the file's layout (CRLF, BOM). */
export function encodeLayout(body: string, layout: TextLayout): string {
  const text = layout.eol === '\r\n' ? body.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n') : body;
  return layout.bom ? BOM + text : text;
}

/** True when the bytes look binary (a NUL in the first 8 KiB). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}
