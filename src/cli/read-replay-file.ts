import { readFile } from 'node:fs/promises';
import { type ReplayLine, replayLineSchema } from '../loop/replay.js';
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
  const lines: ReplayLine[] = [];
  const raw = text.split('\n');
  for (let index = 0; index < raw.length; index += 1) {
    const line = raw[index]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CliError('USAGE', `${file} line ${index + 1} is not JSON: ${(error as Error).message}`, {
        data: { path: file, line: index + 1 },
        cause: error,
      });
    }
    const parsed = replayLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join('.') : '(the line)';
      throw new CliError(
        'USAGE',
        `${file} line ${index + 1}: field "${field}": ${issue?.message ?? 'invalid'}. A replay line is {"turn": string, "label"?: string, "tool": string, "input": object}.`,
        { data: { path: file, line: index + 1, field } },
      );
    }
    lines.push(parsed.data);
  }
  return lines;
}
