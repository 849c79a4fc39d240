import type { WorktreeFileConflict } from './merge-types.js';
import { WorktreeError } from './worktree-error.js';

/**
 * Thrown by `merge()` without a strategy when at least one file has conflicting changes on both
 * sides: nothing was written. `conflicts` (also in `data.conflicts`) names each file with its
 * conflicting hunks; retry with `strategy: 'ours' | 'theirs' | 'markers'` to override.
 */
export class WorktreeConflictError extends WorktreeError {
  readonly conflicts: WorktreeFileConflict[];

  constructor(name: string, conflicts: WorktreeFileConflict[]) {
    super(
      'WORKTREE_CONFLICT',
      `Merge of worktree "${name}" refused: ${conflicts.length} file(s) changed on both sides in ways that conflict: ${conflicts
        .map((conflict) => conflict.path)
        .join(', ')}. Nothing was written; merge again with strategy 'ours', 'theirs' or 'markers'.`,
      { data: { name, conflicts } },
    );
    this.name = 'WorktreeConflictError';
    this.conflicts = conflicts;
  }
}
