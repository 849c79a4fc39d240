// The public API of safeturn, grouped by layer. Every export is named here (no `export *`).

// Errors: one base class, a stable `code` each
export { GuardError } from './errors/guard-error.js';
export { PathError } from './errors/path-error.js';
export { RewindConflictError } from './errors/rewind-conflict-error.js';
export type { SafeturnErrorCode, SafeturnErrorOptions } from './errors/safeturn-error.js';
export { SafeturnError } from './errors/safeturn-error.js';
export { StoreError } from './errors/store-error.js';
export { UsageError } from './errors/usage-error.js';

// Sessions and turns, wrapTools, slash commands, replay
export { formatRestoreReport, formatRollbackPoints } from './loop/format.js';
export type { CallPath, ToolCall, ToolMiddleware } from './loop/middleware.js';
export type { ReplayCallResult, ReplayLine, ReplayOptions } from './loop/replay.js';
export { parseReplay, replay, replayLineSchema } from './loop/replay.js';
export type { SessionListener } from './loop/session.js';
export { createSession } from './loop/create-session.js';
export { Session } from './loop/session.js';
export type { ListSessionsOptions, SessionInfo } from './loop/session-discovery.js';
export { listSessions } from './loop/session-discovery.js';
export type {
  BeginTurnOptions,
  CreateSessionOptions,
  RollbackPoint,
  TurnSummary,
} from './loop/session-options.js';
export { SessionSandbox } from './loop/session-sandbox.js';
export { createSessionTools } from './loop/session-tools.js';
export type { RewindCommandResult } from './loop/slash-commands.js';
export { handleRewind, handleSandbox } from './loop/slash-commands.js';
export { isToolFailure, toolFailure } from './loop/tool-failure.js';
export type {
  PreparedCommand,
  SafeturnTool,
  ToolContext,
  ToolFailure,
  ToolKind,
  ToolResult,
  ToolSuccess,
} from './loop/tool-types.js';
export type { ToolBinding, WrappedTool, WrapToolsOptions } from './loop/wrap-tools.js';
export { wrapTools } from './loop/wrap-tools.js';

// The read-before-edit guard
export type { Fingerprint } from './guard/fingerprint.js';
export { takeFingerprint } from './guard/fingerprint.js';
export type { GuardVerdict, ReadGuardOptions } from './guard/read-guard.js';
export { ReadGuard } from './guard/read-guard.js';

// Checkpoints: captures, rewind and redo, bash coverage, gc
export type { CaptureResult, RestoreOptions, RewindResult } from './checkpoint/checkpoint-store.js';
export { DEFAULT_SIZE_CAP_BYTES } from './checkpoint/checkpoint-store.js';
export type { FileState, SkipReason } from './checkpoint/file-state.js';
export type { GcOptions, GcReport } from './checkpoint/gc.js';
export { collectGarbage, deleteSessionData } from './checkpoint/gc.js';
export type { RestoreFailure, RestoreReport } from './checkpoint/restore.js';
export type { CoverageNote, UncoveredReason } from './checkpoint/scan/coverage.js';
export { formatCoverage } from './checkpoint/scan/coverage.js';
export { DEFAULT_SKIP_DIRECTORIES } from './checkpoint/scan/scan-tree.js';

// Reference tools: read, write, edit, apply_patch, bash
export type {
  AddFileHunk,
  ApplyPatchOptions,
  ApplyPatchResult,
  ApplyPatchToolInput,
  DeleteFileHunk,
  ParsedPatch,
  PatchChunk,
  PatchFileChange,
  PatchHunk,
  PatchLineChange,
  PatchPlan,
  PlanPatchOptions,
  UpdateFileHunk,
} from './tools/apply-patch/index.js';
export {
  applyPatch,
  createApplyPatchTool,
  formatChanges,
  PatchApplyError,
  PatchParseError,
  parsePatch,
  patchPaths,
  planPatch,
  resolvePatchPaths,
} from './tools/apply-patch/index.js';
export type { BashData, BashInput, BashToolOptions } from './tools/bash/bash-tool.js';
export { bashInputSchema, createBashTool } from './tools/bash/bash-tool.js';
export type { EditInput } from './tools/edit-tool.js';
export { createEditTool, editInputSchema } from './tools/edit-tool.js';
export type { ReadData, ReadInput } from './tools/read-tool.js';
export { createReadTool, readInputSchema } from './tools/read-tool.js';
export type { ReferenceToolsOptions } from './tools/reference-tools.js';
export { createReferenceTools } from './tools/reference-tools.js';
export type { WriteInput } from './tools/write-tool.js';
export { createWriteTool, writeInputSchema } from './tools/write-tool.js';

// Shadow git: permanent history
export type {
  CommitTurnInput,
  FlushReport,
  OpenShadowRepoOptions,
  QueuedCommit,
  ShadowDiffQuery,
  ShadowFileEntry,
  ShadowLogEntry,
  ShadowLogQuery,
  ShadowShowQuery,
  TurnReference,
} from './shadow-git/index.js';
export { openShadowRepo, ShadowGitError, ShadowRepo, shadowGitCommand } from './shadow-git/index.js';

// Worktrees
export type {
  WorktreeHost,
  WorktreeInfo,
  WorktreeManager,
  WorktreeMergeReport,
  WorktreeMergeStrategy,
} from './worktree/index.js';
export {
  createWorktreeManager,
  createWorktreeTools,
  WorktreeConflictError,
  WorktreeError,
} from './worktree/index.js';

// Sandbox: policy, bubblewrap, Seatbelt
export type {
  ResolvePolicyEnvironment,
  RunSandboxedOptions,
  RunSandboxedResult,
  SandboxCheckReport,
  SandboxMode,
  SandboxPolicy,
  SandboxPolicyInput,
  WrapCommandOptions,
  WrappedCommand,
} from './sandbox/index.js';
export {
  checkWritePath,
  DEFAULT_DENY_READ,
  detectSandboxSupport,
  resolvePolicy,
  runSandboxed,
  SandboxPolicyError,
  SandboxPolicyInputSchema,
  SandboxPolicySchema,
  SandboxUnavailableError,
  sandboxCheck,
  wrapCommand,
} from './sandbox/index.js';

// MCP server (the SDK adapters are subpath exports: safeturn/ai-sdk, safeturn/openai-agents)
export type { CreateMcpServerOptions, McpServerHandle, RunMcpServerOptions } from './mcp/index.js';
export { createMcpServer, runMcpServer } from './mcp/index.js';

// Paths and home
export { projectId, resolveHome } from './core/home.js';
export type { ResolvedPath } from './core/paths.js';
export { resolveInRoot } from './core/paths.js';
