import { formatPatch, structuredPatch } from 'diff';
import { readBlobBytes } from './object-reader.js';
import type { FileDelta } from './tree-diff.js';
import type { TreeStore } from './tree-edit.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

async function blobText(
  store: TreeStore,
  oid: string | undefined,
): Promise<{ bytes: Uint8Array; text: string | undefined }> {
  if (oid === undefined) return { bytes: new Uint8Array(), text: '' };
  const blob = await readBlobBytes(store, oid);
  // Like git: a NUL byte in the first 8000 bytes, or bytes that are not UTF-8, make a file binary.
  if (blob.subarray(0, 8000).includes(0)) return { bytes: blob, text: undefined };
  try {
    return { bytes: blob, text: decoder.decode(blob) };
  } catch {
    return { bytes: blob, text: undefined };
  }
}

function gitHeader(delta: FileDelta): string {
  const lines = [`diff --git a/${delta.path} b/${delta.path}`];
  if (delta.before === undefined && delta.after !== undefined)
    lines.push(`new file mode ${delta.after.mode}`);
  else if (delta.after === undefined && delta.before !== undefined)
    lines.push(`deleted file mode ${delta.before.mode}`);
  else if (
    delta.before !== undefined &&
    delta.after !== undefined &&
    delta.before.mode !== delta.after.mode
  ) {
    lines.push(`old mode ${delta.before.mode}`, `new mode ${delta.after.mode}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Formats file deltas as one git-style unified diff (`diff --git` headers, mode lines, hunks with
 * 3 lines of context; binary files as `Binary files … differ`). Symlinks diff their target text.
 *
 * @returns the patch text; empty when there are no deltas.
 */
export async function formatUnifiedDiff(store: TreeStore, deltas: FileDelta[], context = 3): Promise<string> {
  const parts: string[] = [];
  for (const delta of deltas) {
    const [before, after] = await Promise.all([
      blobText(store, delta.before?.oid),
      blobText(store, delta.after?.oid),
    ]);
    const oldName = delta.before === undefined ? '/dev/null' : `a/${delta.path}`;
    const newName = delta.after === undefined ? '/dev/null' : `b/${delta.path}`;
    if (before.text === undefined || after.text === undefined) {
      parts.push(`${gitHeader(delta)}Binary files ${oldName} and ${newName} differ\n`);
      continue;
    }
    const patch = structuredPatch(oldName, newName, before.text, after.text, undefined, undefined, {
      context,
    });
    if (patch.hunks.length === 0) {
      parts.push(gitHeader(delta));
      continue;
    }
    const body = formatPatch(patch, {
      includeIndex: false,
      includeUnderline: false,
      includeFileHeaders: true,
    });
    parts.push(`${gitHeader(delta)}${body.endsWith('\n') ? body : `${body}\n`}`);
  }
  return parts.join('');
}
