import { SafeturnError } from './safeturn-error.js';

/**
 * Thrown by a rewind or redo when files changed since the agent last wrote them (rule 12 of
 * DESIGN.md): nothing was written. `data.paths` lists the workspace-relative paths; pass
 * `force: true` to overwrite them (the safety capture lets `redo()` bring the edits back).
 */
export class RewindConflictError extends SafeturnError {
  constructor(paths: string[]) {
    super(
      'REWIND_CONFLICT',
      `Rewind refused: ${paths.length} file(s) changed since the agent last wrote them: ${paths.join(', ')}. Nothing was written; pass force: true to overwrite them.`,
      { data: { paths } },
    );
    this.name = 'RewindConflictError';
  }
}
