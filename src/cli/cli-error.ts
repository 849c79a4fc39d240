import { SafeturnError, type SafeturnErrorOptions } from '../errors/safeturn-error.js';

/**
 * Why the `safeturn` command line refused to run a command (exit 2):
 * - `NO_SUCH_SESSION`: `--session` names no session of the workspace (`data.known` lists the ones that exist);
 * - `NO_SUCH_FILE`: a file named on the command line cannot be read (`data.path`);
 * - `NO_SUCH_PATH`: `show` was asked for a path that did not exist at that turn;
 * - `USAGE`: bad arguments or options (`data.commander` holds commander's own code when it found them).
 */
export class CliError extends SafeturnError {
  constructor(
    code: 'NO_SUCH_SESSION' | 'NO_SUCH_FILE' | 'NO_SUCH_PATH' | 'USAGE',
    message: string,
    options: SafeturnErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'CliError';
  }
}
