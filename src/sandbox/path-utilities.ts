import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** True when `candidate` is `root` itself or lies below it (both absolute, normalised). */
export function isSameOrInside(root: string, candidate: string): boolean {
  if (root === candidate) return true;
  const relative = path.relative(root, candidate);
  return (
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
}

/** Expands a leading `~` against `home` and normalises the result. */
export function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return path.resolve(value);
}

/**
 * The realpath of `target` when it exists; otherwise the realpath of its deepest existing
 * ancestor with the missing components appended.
 */
export async function realpathOfDeepestExisting(target: string): Promise<string> {
  let existing = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = path.dirname(existing);
      if (parent === existing) return target;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}
