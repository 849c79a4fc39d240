/** Version of the `--json` output format; bumped on any incompatible change. */
export const JSON_OUTPUT_VERSION = 1;

/** Where a command writes: JSON Lines on stdout with `--json`, prose otherwise; notes always on stderr. */
export interface Output {
  json: boolean;
  /** One JSON Lines record (with `--json`), `{ v, type, ...data }`. */
  record(type: string, data: Record<string, unknown>): void;
  /** Prose for humans: stdout without `--json`, stderr with it. */
  say(text: string): void;
  /** Warnings and errors: always stderr. */
  warn(text: string): void;
}

/** Builds an {@link Output} over the given streams. */
export function createOutput(
  json: boolean,
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Output {
  return {
    json,
    record(type, data) {
      if (json) stdout.write(`${JSON.stringify({ v: JSON_OUTPUT_VERSION, type, ...data })}\n`);
    },
    say(text) {
      (json ? stderr : stdout).write(`${text}\n`);
    },
    warn(text) {
      stderr.write(`${text}\n`);
    },
  };
}

/** Exit codes are a contract: 0 done, 1 done with some files failed, 2 did not run. */
export const EXIT = { done: 0, partial: 1, didNotRun: 2 } as const;
