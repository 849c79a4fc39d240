import PQueue from 'p-queue';

/**
 * Serialises work per key (one p-queue of concurrency 1 per key, dropped when idle).
 * `run(keys, task)` holds every key at once; keys are taken in sorted order so two tasks
 * over overlapping key sets cannot deadlock.
 */
export class KeyedQueue {
  readonly #queues = new Map<string, { queue: PQueue; users: number }>();

  /** Runs `task` once it holds all `keys`. */
  async run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    return this.#hold(sorted, 0, task);
  }

  async #hold<T>(keys: string[], index: number, task: () => Promise<T>): Promise<T> {
    const key = keys[index];
    if (key === undefined) return task();
    let slot = this.#queues.get(key);
    if (!slot) {
      slot = { queue: new PQueue({ concurrency: 1 }), users: 0 };
      this.#queues.set(key, slot);
    }
    slot.users += 1;
    const held = slot;
    try {
      return (await held.queue.add(() => this.#hold(keys, index + 1, task))) as T;
    } finally {
      held.users -= 1;
      if (held.users === 0) this.#queues.delete(key);
    }
  }
}
