import { SafeturnError, type SafeturnErrorOptions } from './safeturn-error.js';

/** The checkpoint store could not be read or written: `STORE_IO`, `STORE_CORRUPT` or `LOCK_TIMEOUT`. */
export class StoreError extends SafeturnError {
  constructor(
    code: 'STORE_IO' | 'STORE_CORRUPT' | 'LOCK_TIMEOUT',
    message: string,
    options: SafeturnErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}
