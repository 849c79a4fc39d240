import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_SIZE_CAP_BYTES } from '../checkpoint/checkpoint-store.js';
import { Journal } from '../checkpoint/journal.js';
import { TurnLog } from '../checkpoint/turn-log.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { projectDir as projectDirOf, resolveHome } from '../core/home.js';
import { acquireLock, type Lock } from '../core/lock.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import { UsageError } from '../errors/usage-error.js';
import { Session } from './session.js';
import { openSessionHistory } from './session-history.js';
import { type CreateSessionOptions, sessionIdSchema } from './session-options.js';
import { SessionSandbox } from './session-sandbox.js';

function newSessionId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `s-${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Opens a session on a workspace: a new one, or the one named by `sessionId` resumed from disk
 * (turns, checkpoints and guard baselines included). A turn left open by a crashed process is closed.
 *
 * @returns a {@link Session}.
 * @throws UsageError `INVALID_INPUT` when the workspace is not a directory or the session id is invalid.
 * @example
 * ```ts
 * const session = await createSession({ workspace: '/path/to/project' });
 * await session.beginTurn({ label: 'Refactor the parser' });
 * // ... the agent's wrapped tools run ...
 * await session.endTurn();
 * await session.rewind(1); // back to before that turn
 * ```
 */
export async function createSession(options: CreateSessionOptions): Promise<Session> {
  const now = options.now ?? (() => new Date());
  let workspace: string;
  try {
    workspace = await realpath(path.resolve(options.workspace));
    if (!(await stat(workspace)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new UsageError('INVALID_INPUT', `Workspace ${options.workspace} is not an existing directory.`, {
      cause: error,
      data: { workspace: options.workspace },
    });
  }
  const id = options.sessionId ?? newSessionId(now());
  const parsedId = sessionIdSchema.safeParse(id);
  if (!parsedId.success) {
    throw new UsageError(
      'INVALID_INPUT',
      `Invalid session id ${JSON.stringify(id)}: ${parsedId.error.issues[0]?.message}.`,
    );
  }
  const homeGiven = resolveHome(options.home, options.env);
  const readOnly = options.readOnly ?? false;
  const sessionDir = path.join(projectDirOf(homeGiven, workspace), 'sessions', id);
  if (readOnly) {
    if (!(await stat(path.join(sessionDir, 'journal.jsonl')).catch(() => undefined))) {
      throw new UsageError(
        'NO_SUCH_SESSION',
        `No session ${JSON.stringify(id)} for workspace ${workspace}.`,
        { data: { sessionId: id, workspace } },
      );
    }
  } else {
    await mkdir(sessionDir, { recursive: true });
  }
  // Realpath'd, so containment checks against it hold when the home is reached through a symlink.
  const home = await realpath(homeGiven);
  const projectDir = projectDirOf(home, workspace);
  const lock = readOnly
    ? undefined
    : await takeSessionLock(
        path.join(projectDir, 'sessions', id, 'session.lock'),
        id,
        options.lockTimeoutMs ?? 2000,
      );
  const projectFile = path.join(projectDir, 'project.json');
  const existingProject = await readFile(projectFile, 'utf8').catch(() => undefined);
  if (existingProject === undefined && !readOnly) {
    await writeFileAtomic(
      projectFile,
      `${JSON.stringify({ workspace, createdAt: now().toISOString() }, null, 2)}\n`,
    );
  }
  const sandbox = await openSandbox(options, workspace, home);
  const history =
    options.shadowGit === false
      ? undefined
      : await openSessionHistory({
          workspace,
          home,
          ...(options.skipDirectories ? { skipDirectories: options.skipDirectories } : {}),
          ...(options.now ? { now: options.now } : {}),
          baseline: !readOnly,
          ...(options.onScanProgress ? { onScanProgress: options.onScanProgress } : {}),
        });
  const journal = new Journal(path.join(projectDir, 'sessions', id, 'journal.jsonl'));
  journal.readOnly = readOnly;
  const { records } = await journal.read();
  const log = new TurnLog(workspace);
  const session = new Session({
    id,
    workspace,
    home,
    projectDir,
    sizeCapBytes: options.sizeCapBytes ?? DEFAULT_SIZE_CAP_BYTES,
    maxTurns: options.maxTurns ?? 100,
    journal,
    log,
    now,
    ...(options.skipDirectories ? { skipDirectories: options.skipDirectories } : {}),
    ...(options.watchFiles === undefined ? {} : { watchFiles: options.watchFiles }),
    ...(options.onScanProgress ? { onScanProgress: options.onScanProgress } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(history ? { history } : {}),
    ...(lock ? { lock } : {}),
  });
  if (records.length === 0 && !readOnly) {
    await journal.append({ type: 'session', v: 1, sessionId: id, workspace, at: now().toISOString() });
  }
  for (const record of records) {
    log.apply(record);
    if (record.type === 'read') {
      session.guard.load(
        record.key,
        record.fp
          ? { mtimeNs: BigInt(record.fp.mtimeNs), size: record.fp.size, sha256: record.fp.sha256 }
          : undefined,
      );
    }
  }
  if (log.activeTurn && !readOnly) {
    // We hold the session lock, so the process that left this turn open is gone: end it (and
    // commit it to the shadow history, which it never reached).
    await session.endTurn();
  }
  return session;
}

async function takeSessionLock(file: string, id: string, timeoutMs: number): Promise<Lock> {
  try {
    return await acquireLock(file, { timeoutMs, purpose: `session ${id}` });
  } catch (error) {
    if (SafeturnError.isInstance(error) && error.code === 'LOCK_TIMEOUT') {
      const pid = (error.data.owner as { pid?: number } | undefined)?.pid;
      if (pid === process.pid) {
        throw new UsageError(
          'SESSION_IN_USE',
          `Session ${id} is already open in this process: use that Session (or close() it first), or open this one with readOnly: true.`,
          {
            cause: error,
            data: { sessionId: id },
          },
        );
      }
      throw new UsageError(
        'SESSION_IN_USE',
        `Session ${id} is open for writing in another live process (${String((error.data.owner as { pid?: number } | undefined)?.pid ?? '?')}); open it with readOnly: true, or close the other one.`,
        {
          cause: error,
          data: { sessionId: id },
        },
      );
    }
    throw error;
  }
}

async function openSandbox(
  options: CreateSessionOptions,
  workspace: string,
  home: string,
): Promise<SessionSandbox | undefined> {
  if (options.sandbox === false) return undefined;
  if (options.sandbox === undefined && options.configPath === undefined) {
    const text = await readFile(path.join(workspace, 'safeturn.config.json'), 'utf8').catch(() => undefined);
    let hasSection = false;
    try {
      hasSection =
        text !== undefined && typeof JSON.parse(text) === 'object' && JSON.parse(text)?.sandbox !== undefined;
    } catch {
      // An unparsable config file: let resolvePolicy name the problem.
      hasSection = true;
    }
    if (!hasSection) return undefined;
  }
  return SessionSandbox.open({
    workspace,
    home,
    input: typeof options.sandbox === 'object' ? options.sandbox : undefined,
    ...(options.configPath ? { configPath: options.configPath } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}
