import { readFile } from 'node:fs/promises';
import { SafeturnError } from '../errors/safeturn-error.js';
import { parseReplay, type ReplayLine } from '../loop/replay.js';
import { CliError } from './cli-error.js';

/**
 * Reads and checks a recorded session for `safeturn replay`: one JSON object per line,
 * `{"turn": string, "label"?: string, "tool": string, "input": ...}`; blank lines are ignored.
 *
 * @param file - path of the `.jsonl` file.
 * @returns the parsed lines.
 * @throws CliError `NO_SUCH_FILE` when the file cannot be read; `USAGE` naming the line and the
 *   field when a line is not JSON or not a replay record (e.g. a numeric `turn`).
 */
export async function readReplayFile(file: string): Promise<ReplayLine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError('NO_SUCH_FILE', `Cannot read the replay file ${file}: ${(error as Error).message}`, {
      data: { path: file },
      cause: error,
    });
  }
  try {
    return parseReplay(text);
  } catch (error) {
    if (!SafeturnError.isInstance(error)) throw error;
    throw new CliError('USAGE', `${file} ${error.message}`, {
      data: { path: file, ...error.data },
      cause: error,
    });
  }
}
