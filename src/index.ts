export { SafeturnError } from './errors/safeturn-error.js';
export type { SafeturnErrorCode, SafeturnErrorOptions } from './errors/safeturn-error.js';
