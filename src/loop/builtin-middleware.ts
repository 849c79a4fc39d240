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
    for (const target of call.paths) await call.session.checkpoints.capture(target.root, target.relative);
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
