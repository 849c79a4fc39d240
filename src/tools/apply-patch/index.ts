export type { ApplyPatchOptions, ApplyPatchResult } from './apply-patch.js';
export { applyPatch } from './apply-patch.js';
export type { ApplyPatchToolInput } from './apply-patch-tool.js';
export { createApplyPatchTool } from './apply-patch-tool.js';
export { formatChanges } from './format-changes.js';
export { parsePatch } from './parse-patch.js';
export { PatchApplyError } from './patch-apply-error.js';
export { PatchParseError } from './patch-parse-error.js';
export type {
  AddFileHunk,
  DeleteFileHunk,
  ParsedPatch,
  PatchChunk,
  PatchHunk,
  PatchLineChange,
  UpdateFileHunk,
} from './patch-types.js';
export type { PatchFileChange, PatchPlan, PlannedWrite, PlanPatchOptions } from './plan-patch.js';
export { planPatch } from './plan-patch.js';
export type { ResolvedPatch } from './resolve-patch-paths.js';
export { patchPaths, resolvePatchPaths } from './resolve-patch-paths.js';
