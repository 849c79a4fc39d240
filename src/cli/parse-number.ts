import { InvalidArgumentError } from 'commander';

/**
 * Commander argument parser for a non-negative integer option (`--limit 5`, `--grace-ms 0`).
 * @throws InvalidArgumentError (a commander usage error, exit 2) for anything else.
 */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('Not a non-negative whole number.');
  return Number(value);
}
