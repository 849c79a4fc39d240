import { z } from 'zod';
import type { SkipReason } from './workspace-state.js';

/** A changed path that a commit could not store, with the reason (rule 3). */
export interface SkippedPath {
  path: string;
  reason: SkipReason;
}

/** What a shadow commit's message says about it. */
export interface CommitInfo {
  kind: 'turn' | 'baseline';
  sessionId?: string;
  turnId?: string;
  label: string;
  /** Time the commit was made, ms since the epoch (the author date only has seconds). */
  timeMs: number;
  /** Id of the pending record the commit was made from (crash repair matches on it). */
  recordId?: string;
  skipped: SkippedPath[];
}

const skippedSchema = z.object({
  path: z.string(),
  reason: z.enum(['too-large', 'not-a-regular-file', 'unreadable', 'git-metadata']),
});

const infoSchema = z.object({
  kind: z.enum(['turn', 'baseline']),
  sessionId: z.string().optional(),
  turnId: z.string().optional(),
  label: z.string(),
  timeMs: z.number(),
  recordId: z.string().optional(),
  skipped: z.array(skippedSchema),
});

function firstLine(text: string, max: number): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Formats a commit message: a readable subject, then machine-parsable trailer lines
 * (`Safeturn-Session`, `Safeturn-Turn`, `Safeturn-Label` as JSON, `Safeturn-Time`, ...).
 */
export function formatCommitMessage(info: CommitInfo): string {
  const subject =
    info.kind === 'baseline'
      ? `safeturn baseline: ${firstLine(info.label, 60)}`
      : `safeturn turn ${firstLine(info.turnId ?? '', 40)} [${info.sessionId}]: ${firstLine(info.label, 60)}`;
  const trailers = [`Safeturn-Kind: ${info.kind}`];
  if (info.sessionId !== undefined) trailers.push(`Safeturn-Session: ${info.sessionId}`);
  if (info.turnId !== undefined) trailers.push(`Safeturn-Turn: ${info.turnId}`);
  trailers.push(`Safeturn-Label: ${JSON.stringify(info.label)}`);
  trailers.push(`Safeturn-Time: ${new Date(info.timeMs).toISOString()}`);
  if (info.recordId !== undefined) trailers.push(`Safeturn-Record: ${info.recordId}`);
  for (const skipped of info.skipped) trailers.push(`Safeturn-Skipped: ${JSON.stringify(skipped)}`);
  return `${subject}\n\n${trailers.join('\n')}\n`;
}

/**
 * Parses the trailers of a shadow commit message.
 *
 * @returns the {@link CommitInfo}, or undefined when the message is not a safeturn commit.
 */
export function parseCommitMessage(message: string): CommitInfo | undefined {
  const values: Record<string, unknown> = { skipped: [] };
  const skipped: unknown[] = [];
  try {
    for (const line of message.split('\n').slice(1)) {
      const match = /^Safeturn-([A-Za-z]+): (.*)$/.exec(line);
      if (!match) continue;
      const [, key, value] = match as unknown as [string, string, string];
      if (key === 'Kind') values.kind = value;
      else if (key === 'Session') values.sessionId = value;
      else if (key === 'Turn') values.turnId = value;
      else if (key === 'Label') values.label = JSON.parse(value);
      else if (key === 'Time') values.timeMs = Date.parse(value);
      else if (key === 'Record') values.recordId = value;
      else if (key === 'Skipped') skipped.push(JSON.parse(value));
    }
  } catch {
    return undefined;
  }
  values.skipped = skipped;
  const parsed = infoSchema.safeParse(values);
  if (!parsed.success) return undefined;
  const { sessionId, turnId, recordId, ...rest } = parsed.data;
  return {
    ...rest,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(turnId === undefined ? {} : { turnId }),
    ...(recordId === undefined ? {} : { recordId }),
  };
}
