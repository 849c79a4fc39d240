import type { FileState } from './file-state.js';
import type { JournalRecord, RestoreEntry } from './journal-records.js';

/** A recorded pre-image of one path in one turn. */
export interface CaptureEntry {
  root: string;
  path: string;
  pre: FileState;
  dirs: string[];
}

/** In-memory view of one turn, rebuilt from the journal. */
export interface TurnState {
  id: string;
  label: string;
  index: number;
  startedAt: string;
  endedAt?: string;
  /** The rewind that undid this turn, while it is undone. */
  undoneBy?: string;
  pruned: boolean;
  /** First capture of each path (key = root NUL path), in capture order. */
  captures: Map<string, CaptureEntry>;
  /** Last post state of each path. */
  posts: Map<string, FileState>;
  /** Directories created during the turn. */
  directories: Map<string, { root: string; path: string }>;
  /** Notes other layers attached to the turn (coverage notes, shadow commits), in order. */
  notes: { kind: string; data: unknown }[];
}

/** A rewind as recorded, and whether it was redone. */
export interface RewindState {
  id: string;
  to: string;
  turns: string[];
  entries: RestoreEntry[];
  directories: { root: string; path: string }[];
  redone: boolean;
  /** Index of the last turn that existed when the rewind ran. */
  lastTurnIndex: number;
}

/** Key of a path under a root. */
export function pathKey(root: string, relative: string): string {
  return `${root}\0${relative}`;
}

/**
 * The session's turns, captures and rewinds, rebuilt from journal records (and kept up to date
 * as records are appended). Pure bookkeeping: no I/O.
 */
export class TurnLog {
  readonly turns = new Map<string, TurnState>();
  readonly order: TurnState[] = [];
  readonly rewinds: RewindState[] = [];
  activeTurn: TurnState | undefined;
  readonly #workspace: string;

  constructor(workspace: string) {
    this.#workspace = workspace;
  }

  /** Applies one record to the in-memory state. */
  apply(record: JournalRecord): void {
    switch (record.type) {
      case 'turn': {
        const turn: TurnState = {
          id: record.turn,
          label: record.label,
          index: record.index,
          startedAt: record.at,
          pruned: false,
          captures: new Map(),
          posts: new Map(),
          directories: new Map(),
          notes: [],
        };
        this.turns.set(turn.id, turn);
        this.order.push(turn);
        this.activeTurn = turn;
        return;
      }
      case 'turn-end': {
        const turn = this.turns.get(record.turn);
        if (turn) turn.endedAt = record.at;
        if (this.activeTurn?.id === record.turn) this.activeTurn = undefined;
        return;
      }
      case 'capture': {
        const turn = this.turns.get(record.turn);
        const root = record.root ?? this.#workspace;
        const key = pathKey(root, record.path);
        if (turn && !turn.captures.has(key)) {
          turn.captures.set(key, { root, path: record.path, pre: record.pre, dirs: record.dirs ?? [] });
          for (const dir of record.dirs ?? []) turn.directories.set(pathKey(root, dir), { root, path: dir });
        }
        return;
      }
      case 'post': {
        const root = record.root ?? this.#workspace;
        this.turns.get(record.turn)?.posts.set(pathKey(root, record.path), record.post);
        return;
      }
      case 'mkdir': {
        const root = record.root ?? this.#workspace;
        this.turns.get(record.turn)?.directories.set(pathKey(root, record.path), { root, path: record.path });
        return;
      }
      case 'rewind': {
        for (const id of record.turns) {
          const turn = this.turns.get(id);
          if (turn) turn.undoneBy = record.id;
        }
        this.rewinds.push({
          id: record.id,
          to: record.to,
          turns: record.turns,
          entries: record.entries,
          directories: (record.dirs ?? []).map((dir) => ({
            root: dir.root ?? this.#workspace,
            path: dir.path,
          })),
          redone: false,
          lastTurnIndex: this.order.at(-1)?.index ?? -1,
        });
        return;
      }
      case 'redo': {
        const rewind = this.rewinds.find((candidate) => candidate.id === record.rewind);
        if (!rewind) return;
        rewind.redone = true;
        for (const id of rewind.turns) {
          const turn = this.turns.get(id);
          if (turn?.undoneBy === rewind.id) delete turn.undoneBy;
        }
        return;
      }
      case 'rewind-incomplete': {
        for (const turn of this.turns.values()) if (turn.undoneBy === record.rewind) delete turn.undoneBy;
        return;
      }
      case 'prune': {
        for (const id of record.turns) {
          const turn = this.turns.get(id);
          if (turn) turn.pruned = true;
        }
        return;
      }
      case 'note': {
        if (record.turn) this.turns.get(record.turn)?.notes.push({ kind: record.kind, data: record.data });
        return;
      }
      case 'session':
      case 'read':
        return;
    }
  }

  /** Turns that are rollback points: not undone, not pruned, oldest first. */
  liveTurns(): TurnState[] {
    return this.order.filter((turn) => !turn.pruned && turn.undoneBy === undefined);
  }

  /** The rewind `redo()` would undo, if any: the newest not redone, with no turn begun after it. */
  redoCandidate(): RewindState | undefined {
    const lastIndex = this.order.at(-1)?.index ?? -1;
    for (let position = this.rewinds.length - 1; position >= 0; position -= 1) {
      const rewind = this.rewinds[position]!;
      if (rewind.redone) continue;
      return rewind.lastTurnIndex === lastIndex ? rewind : undefined;
    }
    return undefined;
  }
}
