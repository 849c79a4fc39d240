/**
 * Caps text for a model: keeps the head and the tail, and replaces the middle by a line saying how
 * many characters and lines were left out.
 *
 * @param text - the full output.
 * @param maxChars - the most characters kept (head and tail together).
 */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  const middle = text.slice(head, text.length - tail);
  const lines = middle.split('\n').length - 1;
  return `${text.slice(0, head)}\n[... ${middle.length} characters (${lines} lines) elided ...]\n${text.slice(text.length - tail)}`;
}
