import type { Command } from 'commander';
import { commonOptions } from '../context.js';

/** Adds `--workspace`, `--session`, `--json` and `--home` to a command. */
export function withCommon(command: Command): Command {
  for (const option of commonOptions()) command.addOption(option);
  return command;
}
