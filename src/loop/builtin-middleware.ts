import { formatCoverage } from '../checkpoint/scan/coverage.js';
import type { ToolMiddleware } from './middleware.js';
import { isToolFailure } from './tool-failure.js';
import type { ToolKind } from './tool-types.js';

const writeKinds: ReadonlySet<ToolKind> = new Set(['write', 'edit', 'apply_patch']);

/** True for kinds that go through the guard and the checkpoint. */
export function isWriteKind(kind: ToolKind): boolean {
  return writeKinds.has(kind);
}

/**
 * The read-before-edit guard as middleware: refuses a write to an existing file the agent never
 * read or that changed since (`GUARD_NEVER_READ`, `GUARD_STALE`), and records reads.
 */
export const guardMiddleware: ToolMiddleware = {
  name: 'guard',
  async beforeCall(call) {
    if (!isWriteKind(call.kind)) return undefined;
    for (const target of call.paths) {
      const verdict = await call.session.guard.check(target.key, target.absolute, target.relative);
      if (!verdict.ok)
        return {
          ok: false,
          error: { code: verdict.error.code, message: verdict.error.message, data: verdict.error.data },
        };
    }
    return undefined;
  },
  async afterCall(call, outcome) {
    if (call.kind !== 'read' || outcome.error !== undefined || isToolFailure(outcome.result)) return;
    for (const target of call.paths) await call.session.guard.recordRead(target.key, target.absolute);
  },
};

/**
 * Checkpoints as middleware: captures every path's pre-image before a write (first capture in
 * a turn wins), and afterwards records the state the write left (rule 12) and refreshes the
 * guard's baseline, also when the tool failed half-way.
 */
export const checkpointMiddleware: ToolMiddleware = {
  name: 'checkpoint',
  async beforeCall(call) {
    if (!isWriteKind(call.kind)) return undefined;
    for (const target of call.paths) {
      const captured = await call.session.checkpoints.capture(target.root, target.relative);
      if (captured.recorded && captured.pre.kind === 'skipped') {
        call.warnings.push(
          `[safeturn] NOT covered by rewind: ${target.relative} (${captured.pre.reason}: its current content could not be stored, so a rewind cannot bring it back)`,
        );
      }
    }
    return undefined;
  },
  async afterCall(call) {
    if (!isWriteKind(call.kind)) return;
    for (const target of call.paths) {
      await call.session.checkpoints.recordPost(target.root, target.relative);
      await call.session.guard.refresh(target.key, target.absolute);
    }
  },
};

/** The key bash calls hold in the session's path queue: one bash call at a time per session. */
const BASH_KEY = '\0bash';

/**
 * Bash coverage as middleware: stages the root before a `bash` call and diffs it after (also when
 * the command failed or threw), records the changes as captures of the turn, journals the coverage
 * note and attaches it to the result (`result.coverage`, and a line in `result.output` when
 * something was not covered).
 */
export const bashStagingMiddleware: ToolMiddleware = {
  name: 'bash-staging',
  async wrapExecute(call, next) {
    if (call.kind !== 'bash') return next();
    const { session } = call;
    return session.pathQueue.run([BASH_KEY], async () => {
      const turnId = session.currentTurn()?.id;
      const staged = await session.staging.stage(
        call.context.root,
        turnId === undefined ? {} : { turn: turnId },
      );
      let result: unknown;
      let failure: { error: unknown } | undefined;
      try {
        result = await next();
      } catch (error) {
        failure = { error };
      }
      const turn = session.currentTurn();
      const note = await session.staging.finish(staged, session.checkpoints, turn?.id ?? '');
      await session.addNote('coverage', note);
      if (failure) throw failure.error;
      if (typeof result === 'object' && result !== null) {
        const withNote: Record<string, unknown> = { ...(result as Record<string, unknown>), coverage: note };
        if (note.uncovered.length > 0 && typeof withNote.output === 'string')
          withNote.output = `${withNote.output}\n${formatCoverage(note)}`;
        return withNote;
      }
      return result;
    });
  },
};

/**
 * The sandbox as middleware (first in the chain): a write, edit or apply_patch to a path the
 * policy does not let bash write is refused (`SANDBOX_POLICY`); a `bash` call gets
 * `context.prepareCommand`, which wraps its argv for bubblewrap or Seatbelt; a read of a
 * `denyRead` path is refused too. Without a policy it
 * does nothing. It never runs a command outside the sandbox.
 */
export const sandboxMiddleware: ToolMiddleware = {
  name: 'sandbox',
  async beforeCall(call) {
    const sandbox = call.session.sandbox;
    if (!sandbox) return undefined;
    if (call.kind === 'bash') {
      const root = call.context.root;
      call.context.prepareCommand = (argv) => sandbox.prepare(argv, root);
      return undefined;
    }
    if (call.kind === 'read') {
      for (const target of call.paths) {
        const verdict = await sandbox.checkRead(target.root, target.absolute);
        if (!verdict.allowed)
          return {
            ok: false,
            error: {
              code: 'SANDBOX_POLICY',
              message: verdict.message,
              data: { path: target.relative, reason: 'deny-read' },
            },
          };
      }
      return undefined;
    }
    if (!isWriteKind(call.kind)) return undefined;
    for (const target of call.paths) {
      const verdict = await sandbox.checkWrite(target.root, target.absolute);
      if (!verdict.allowed) {
        return {
          ok: false,
          error: {
            code: 'SANDBOX_POLICY',
            message: verdict.message,
            data: { path: target.relative, reason: verdict.reason },
          },
        };
      }
    }
    return undefined;
  },
};
