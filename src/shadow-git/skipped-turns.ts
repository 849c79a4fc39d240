import { appendFile, readFile } from 'node:fs/promises';
import { z } from 'zod';

/** Schema of one line of `skipped.jsonl` (read back with `safeParse`; bad lines are ignored). */
export const skippedTurnSchema = z.object({
  sessionId: z.string(),
  turnId: z.string(),
  label: z.string(),
  reason: z.string(),
  timeMs: z.number(),
});

/** A turn whose shadow commit was skipped on purpose (rule A: a worktree was active). */
export type SkippedTurn = z.infer<typeof skippedTurnSchema>;

/**
 * Appends one skipped turn. Each line starts with a newline, so a line torn by a killed writer
 * is closed off and only that line is lost; readers skip blank and unparsable lines.
 */
export async function appendSkippedTurn(file: string, turn: SkippedTurn): Promise<void> {
  await appendFile(file, `\n${JSON.stringify(turn)}`);
}

/** Reads every skipped turn, oldest first. */
export async function readSkippedTurns(file: string): Promise<SkippedTurn[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const turns: SkippedTurn[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = skippedTurnSchema.safeParse(JSON.parse(line));
      if (parsed.success) turns.push(parsed.data);
    } catch {
      // A torn line: ignored (rule 6).
    }
  }
  return turns;
}
