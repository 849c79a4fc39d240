import { z } from 'zod';
import type { Session } from '../loop/session.js';

/** `_meta` key a client sets on `tools/call` to group calls into one turn (a string id it chooses). */
export const MCP_TURN_META_KEY = 'safeturn/turn';
/** `_meta` key: `true` ends the turn right after this call. */
export const MCP_END_TURN_META_KEY = 'safeturn/endTurn';
/** `_meta` key: the turn's label (what the user asked), used when the call opens a turn. */
export const MCP_LABEL_META_KEY = 'safeturn/label';

const turnMetaSchema = z.object({
  [MCP_TURN_META_KEY]: z.string().min(1).max(200).optional(),
  [MCP_END_TURN_META_KEY]: z.boolean().optional(),
  [MCP_LABEL_META_KEY]: z.string().max(10_000).optional(),
});

/** The turn fields of a `tools/call` request's `_meta`, validated. */
export interface McpTurnRequest {
  /** The client's turn id; absent means "this call is its own turn". */
  clientTurn?: string;
  endTurn: boolean;
  label?: string;
}

/**
 * Reads the turn fields of a request's `_meta`. Wrong types are ignored field by field (a
 * client's unrelated `_meta` must never break a call).
 */
export function readTurnMeta(meta: unknown): McpTurnRequest {
  const fields = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  const parsed = turnMetaSchema.safeParse({
    [MCP_TURN_META_KEY]: fields[MCP_TURN_META_KEY],
    [MCP_END_TURN_META_KEY]: fields[MCP_END_TURN_META_KEY],
    [MCP_LABEL_META_KEY]: fields[MCP_LABEL_META_KEY],
  });
  const data = parsed.success ? parsed.data : {};
  return {
    ...(data[MCP_TURN_META_KEY] === undefined ? {} : { clientTurn: data[MCP_TURN_META_KEY] }),
    endTurn: data[MCP_END_TURN_META_KEY] ?? false,
    ...(data[MCP_LABEL_META_KEY] === undefined ? {} : { label: data[MCP_LABEL_META_KEY] }),
  };
}

/**
 * Maps MCP requests onto session turns. A call without a client turn id is one turn of its own;
 * calls with the same id share a turn, which ends when a call with another id (or none) arrives,
 * when a call sets `safeturn/endTurn`, before a rewind, and when the server closes. A turn the host
 * opened itself (not through this class) is used as is and never ended here.
 * Callers serialise calls: one request at a time.
 */
export class McpTurns {
  readonly #session: Session;
  /** The session turn this class opened and may end, and the client id it belongs to. */
  #own: { turnId: string; clientTurn: string | undefined } | undefined;

  constructor(session: Session) {
    this.#session = session;
  }

  /**
   * Makes sure the right turn is active for a call.
   * @returns the session turn id the call runs in.
   * @throws UsageError `TURN_STATE` / `STORE_IO` from the session.
   */
  async enter(request: McpTurnRequest, fallbackLabel: string): Promise<string> {
    const current = this.#session.currentTurn();
    if (current && current.id !== this.#own?.turnId) return current.id;
    if (current && request.clientTurn !== undefined && request.clientTurn === this.#own?.clientTurn) {
      return current.id;
    }
    await this.endOpen();
    const label =
      request.label ?? (request.clientTurn ? `${request.clientTurn}: ${fallbackLabel}` : fallbackLabel);
    const begun = await this.#session.beginTurn({ label });
    this.#own = { turnId: begun.id, clientTurn: request.clientTurn };
    return begun.id;
  }

  /** Ends the call's turn when it was a turn of its own or the client asked to end it. */
  async leave(request: McpTurnRequest): Promise<void> {
    if (request.clientTurn === undefined || request.endTurn) await this.endOpen();
  }

  /** Ends the turn this class opened, if it is still active. */
  async endOpen(): Promise<void> {
    const own = this.#own;
    this.#own = undefined;
    if (own && this.#session.currentTurn()?.id === own.turnId) await this.#session.endTurn();
  }
}
