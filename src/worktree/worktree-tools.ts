import { z } from 'zod';
import { SafeturnError } from '../errors/safeturn-error.js';
import type { SafeturnTool, ToolFailure, ToolResult } from '../loop/tool-types.js';
import type { WorktreeMergeReport } from './merge-types.js';
import { worktreeNameSchema } from './registry.js';
import { describeConflicts, describeCreated, describeList, describeMerged } from './tool-output.js';
import type { WorktreeCreated, WorktreeDiscarded, WorktreeInfo, WorktreeManager } from './types.js';
import { WorktreeConflictError } from './worktree-conflict-error.js';

/** Input of `worktree_create`. */
export const worktreeCreateInputSchema = z.object({
  name: worktreeNameSchema
    .optional()
    .describe('Name of the worktree (a folder name). Default: a generated one.'),
  base: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Commit or branch to start from. Default: HEAD, with the user's uncommitted changes carried over.",
    ),
  include: z
    .array(z.string().min(1))
    .optional()
    .describe('Extra gitignore-style patterns of ignored files to copy in too, e.g. [".env"].'),
});

/** Input of `worktree_merge`. */
export const worktreeMergeInputSchema = z.object({
  name: worktreeNameSchema.describe('The worktree to merge back.'),
  strategy: z
    .enum(['ours', 'theirs', 'markers'])
    .optional()
    .describe(
      'Only when a merge was refused for conflicts: "markers" writes conflict markers, "ours" keeps the user\'s side, "theirs" takes the worktree\'s side. Default: refuse on any conflict and change nothing.',
    ),
});

/** Input of `worktree_discard`. */
export const worktreeDiscardInputSchema = z.object({
  name: worktreeNameSchema.describe('The worktree to delete with all its changes.'),
});

/** Input of `worktree_list`. */
export const worktreeListInputSchema = z.object({});

/** The four agent tools over one manager. */
export interface WorktreeTools {
  worktree_create: SafeturnTool<z.infer<typeof worktreeCreateInputSchema>, ToolResult<WorktreeCreated>>;
  worktree_merge: SafeturnTool<z.infer<typeof worktreeMergeInputSchema>, ToolResult<WorktreeMergeReport>>;
  worktree_discard: SafeturnTool<z.infer<typeof worktreeDiscardInputSchema>, ToolResult<WorktreeDiscarded>>;
  worktree_list: SafeturnTool<z.infer<typeof worktreeListInputSchema>, ToolResult<WorktreeInfo[]>>;
}

// Worktree refusals are for the model to act on; anything else (host, store) is a host failure and throws.
function asFailure(error: unknown): ToolFailure {
  if (error instanceof WorktreeConflictError) {
    return {
      ok: false,
      error: {
        code: error.code,
        message: describeConflicts(String(error.data.name), error.conflicts),
        data: error.data,
      },
    };
  }
  if (
    SafeturnError.isInstance(error) &&
    (error.code.startsWith('WORKTREE') || error.code === 'INVALID_CONFIG')
  ) {
    return { ok: false, error: { code: error.code, message: error.message, data: error.data } };
  }
  throw error;
}

async function run<Data>(
  work: () => Promise<Data>,
  describe: (data: Data) => string,
): Promise<ToolResult<Data>> {
  try {
    const data = await work();
    return { ok: true, output: describe(data), data };
  } catch (error) {
    return asFailure(error);
  }
}

/**
 * The agent-facing worktree tools (kind `other`): `worktree_create`, `worktree_merge`,
 * `worktree_discard` and `worktree_list`. Refusals (no git, conflicts, unknown name, busy) come
 * back as `ToolFailure` text the model can act on; host failures throw.
 *
 * @param manager - from {@link createWorktreeManager}.
 * @returns a record of tools to put into the session's tool registry.
 * @example
 * ```ts
 * const tools = { ...myTools, ...createWorktreeTools(createWorktreeManager(host)) };
 * ```
 */
export function createWorktreeTools(manager: WorktreeManager): WorktreeTools {
  return {
    worktree_create: {
      description:
        "Create an isolated git worktree (a separate copy of the project, starting from what the user sees, uncommitted changes included) and switch your file tools into it. Use it for risky or experimental work; the user's folder is untouched until worktree_merge.",
      inputSchema: worktreeCreateInputSchema,
      kind: 'other',
      execute: (input, context) =>
        run(
          () =>
            manager.create({
              ...(input.name === undefined ? {} : { name: input.name }),
              ...(input.base === undefined ? {} : { base: input.base }),
              ...(input.include === undefined ? {} : { include: input.include }),
              ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
            }),
          describeCreated,
        ),
    },
    worktree_merge: {
      description:
        "Bring a worktree's changes back into the user's folder as uncommitted changes (never a commit), three-way merged with the user's own edits since creation. Refuses and changes nothing on conflicts unless a strategy is given. Afterwards your tools work in the user's folder again.",
      inputSchema: worktreeMergeInputSchema,
      kind: 'other',
      execute: (input, context) =>
        run(
          () =>
            manager.merge({
              name: input.name,
              ...(input.strategy === undefined ? {} : { strategy: input.strategy }),
              ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
            }),
          describeMerged,
        ),
    },
    worktree_discard: {
      description:
        'Delete a worktree, its folder and its branch, with every change in it that was not merged.',
      inputSchema: worktreeDiscardInputSchema,
      kind: 'other',
      execute: (input, context) =>
        run(
          () =>
            manager.discard({
              name: input.name,
              ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
            }),
          (discarded) =>
            `Discarded worktree "${discarded.name}": folder, git worktree entry and branch ${discarded.branch} are gone.`,
        ),
    },
    worktree_list: {
      description: 'List the worktrees of this project: name, branch, state, owner, changed files.',
      inputSchema: worktreeListInputSchema,
      kind: 'other',
      execute: (_input, context) =>
        run(
          () => manager.list(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
          describeList,
        ),
    },
  };
}
