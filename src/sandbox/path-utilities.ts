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

export { realpathOfDeepestExisting } from '../core/paths.js';
