import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';
import { shadowAuthor } from './repository-layout.js';

/** Prefix of every ref safeturn writes. */
export const refPrefix = 'refs/safeturn/';
/** Ref of the baseline commit (a session id never starts with `_`). */
export const baselineRef = `${refPrefix}_baseline`;
const zeroOid = '0'.repeat(40);
const oidPattern = /^[0-9a-f]{40}$/;

/**
 * The ref of one session's history: `refs/safeturn/<session>`. A session id that is not a valid ref
 * component for git (starts with `.`, holds `..`, ends with `.` or `.lock`) is written as `_x<hex>`,
 * which cannot collide with a real id (ids never start with `_`).
 */
export function sessionRef(sessionId: string): string {
  const valid =
    !sessionId.startsWith('.') &&
    !sessionId.includes('..') &&
    !sessionId.endsWith('.') &&
    !sessionId.endsWith('.lock');
  return `${refPrefix}${valid ? sessionId : `_x${Buffer.from(sessionId, 'utf8').toString('hex')}`}`;
}

/** What a loose ref file holds. */
export type RefState =
  | { state: 'ok'; oid: string }
  | { state: 'missing' }
  | { state: 'torn'; content: string };

async function readPackedRefs(gitdir: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  let text: string;
  try {
    text = await readFile(path.join(gitdir, 'packed-refs'), 'utf8');
  } catch {
    return refs;
  }
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{40}) (refs\/\S+)$/.exec(line);
    if (match) refs.set(match[2]!, match[1]!);
  }
  return refs;
}

/**
 * Reads a ref as a loose file, falling back to `packed-refs` (real `git gc` may pack them).
 * A loose file that is not exactly one object id is reported as `torn`.
 */
export async function inspectRef(gitdir: string, name: string): Promise<RefState> {
  let content: string;
  try {
    content = await readFile(path.join(gitdir, name), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const packed = (await readPackedRefs(gitdir)).get(name);
    return packed === undefined ? { state: 'missing' } : { state: 'ok', oid: packed };
  }
  const oid = content.trim();
  return oidPattern.test(oid) && content.length <= 42 ? { state: 'ok', oid } : { state: 'torn', content };
}

/** The object id a ref points to, or undefined when it does not exist (or is torn). */
export async function readRef(gitdir: string, name: string): Promise<string | undefined> {
  const state = await inspectRef(gitdir, name);
  return state.state === 'ok' ? state.oid : undefined;
}

/** Names of every ref under `refs/safeturn/` (loose and packed). */
export async function listSafeturnRefs(gitdir: string): Promise<string[]> {
  const names = new Set<string>();
  try {
    for (const entry of await readdir(path.join(gitdir, refPrefix), { withFileTypes: true })) {
      if (entry.isFile() && !entry.name.includes('.safeturn-tmp')) names.add(`${refPrefix}${entry.name}`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const name of (await readPackedRefs(gitdir)).keys()) if (name.startsWith(refPrefix)) names.add(name);
  return [...names].sort();
}

/** Options of {@link updateRef}. */
export interface UpdateRefOptions {
  gitdir: string;
  name: string;
  oid: string;
  /** The value it had before (for the reflog); undefined for a new ref. */
  previous: string | undefined;
  /** One-line reflog message. */
  message: string;
  /** Time of the update, in ms since the epoch. */
  timeMs: number;
}

/**
 * Moves a ref atomically (temp file + rename, never a torn ref) and appends a line to its reflog
 * (`logs/<name>`, git's format), which repair uses to recover a ref damaged by hand or by a disk.
 */
export async function updateRef(options: UpdateRefOptions): Promise<void> {
  const file = path.join(options.gitdir, options.name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${options.oid}\n`);
  const logFile = path.join(options.gitdir, 'logs', options.name);
  await mkdir(path.dirname(logFile), { recursive: true });
  const seconds = Math.floor(options.timeMs / 1000);
  const message = options.message.replace(/[\r\n]+/g, ' ').slice(0, 200);
  await appendFile(
    logFile,
    `${options.previous ?? zeroOid} ${options.oid} ${shadowAuthor.name} <${shadowAuthor.email}> ${seconds} +0000\t${message}\n`,
  );
}

/**
 * The newest object ids a ref held according to its reflog, newest first (torn lines skipped).
 */
export async function reflogOids(gitdir: string, name: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path.join(gitdir, 'logs', name), 'utf8');
  } catch {
    return [];
  }
  const oids: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^[0-9a-f]{40} ([0-9a-f]{40}) /.exec(line);
    if (match && match[1] !== zeroOid) oids.push(match[1]!);
  }
  return oids.reverse();
}
