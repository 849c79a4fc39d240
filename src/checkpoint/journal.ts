import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';
import { writeFileAtomic } from '../core/atomic-write.js';
import { StoreError } from '../errors/store-error.js';
import { UsageError } from '../errors/usage-error.js';
import { type JournalRecord, journalRecordSchema } from './journal-records.js';

/** What reading a journal found. */
export interface JournalReadResult {
  records: JournalRecord[];
  /** 1-based line numbers that were torn or invalid and were skipped. */
  skippedLines: number[];
}

/**
 * An append-only JSON Lines journal (rule 6 of DESIGN.md). Appends are serialised through a
 * queue and each record is one `write(2)` with `O_APPEND`, so the cost of an append does not
 * depend on the journal's length, and two writers never interleave inside a line.
 */
export class Journal {
  readonly file: string;
  readonly #queue = new PQueue({ concurrency: 1 });
  /** Set for a session opened read-only: appends are refused with `READ_ONLY`. */
  readOnly = false;
  #tornTail = false;

  /** @param file - absolute path of `journal.jsonl`. */
  constructor(file: string) {
    this.file = file;
  }

  /**
   * Reads every record, validating each line; a torn last line (a crash mid-append) or any
   * invalid line is skipped and reported, never fatal.
   *
   * @throws StoreError `STORE_IO` when the file exists but cannot be read.
   */
  async read(): Promise<JournalReadResult> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], skippedLines: [] };
      throw new StoreError('STORE_IO', `Cannot read journal ${this.file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#tornTail = text.length > 0 && !text.endsWith('\n');
    const records: JournalRecord[] = [];
    const skippedLines: number[] = [];
    const lines = text.split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index]!;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        skippedLines.push(index + 1);
        continue;
      }
      const result = journalRecordSchema.safeParse(parsed);
      if (result.success) records.push(result.data);
      else skippedLines.push(index + 1);
    }
    return { records, skippedLines };
  }

  /**
   * Appends records (in order) as one write.
   *
   * @throws StoreError `STORE_IO` when the journal cannot be written.
   */
  append(...records: JournalRecord[]): Promise<void> {
    if (this.readOnly) {
      return Promise.reject(
        new UsageError(
          'READ_ONLY',
          `This session was opened read-only; nothing can be recorded in ${this.file}.`,
        ),
      );
    }
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
    return this.#queue.add(async () => {
      try {
        await mkdir(path.dirname(this.file), { recursive: true });
        // A torn last line from a crash: start on a fresh line so the new record stays readable.
        const prefix = this.#tornTail ? '\n' : '';
        this.#tornTail = false;
        await appendFile(this.file, prefix + text);
      } catch (error) {
        throw new StoreError(
          'STORE_IO',
          `Cannot append to journal ${this.file}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    });
  }

  /**
   * Replaces the journal with `records` (retention compaction), atomically.
   */
  rewrite(records: JournalRecord[]): Promise<void> {
    return this.#queue.add(async () => {
      await writeFileAtomic(this.file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
      this.#tornTail = false;
    });
  }

  /** Resolves when every queued append has been written. */
  async flush(): Promise<void> {
    await this.#queue.onIdle();
  }
}
