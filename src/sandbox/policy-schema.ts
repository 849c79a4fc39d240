import { z } from 'zod';

/**
 * The three sandbox modes. `danger-full-access` turns the sandbox off and must be named
 * explicitly: it is never a default and never a fallback.
 */
export const SandboxModeSchema = z
  .enum(['read-only', 'workspace-write', 'danger-full-access'])
  .describe(
    "How much a sandboxed command may do. 'read-only': read everywhere except denyRead, write only its private temp dir. " +
      "'workspace-write' (default): also write the workspace and writableRoots, minus protected paths. " +
      "'danger-full-access': no sandbox at all; only when named explicitly.",
  );

/** A sandbox mode. */
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

const globCharacters = /[*?[\]{}]/;

/** A path as written in a policy: absolute, or starting with `~/` (the HOME of the resolving environment). */
const policyPathSchema = z
  .string()
  .min(1, 'a path cannot be empty')
  .refine((value) => !value.includes('\0'), 'a path cannot contain a NUL byte')
  .refine(
    (value) => value.startsWith('/') || value === '~' || value.startsWith('~/'),
    'must be absolute or start with ~/',
  )
  .refine(
    (value) => !globCharacters.test(value),
    'globs cannot be enforced: bubblewrap binds concrete paths and Seatbelt parameters are literal; list the paths themselves',
  );

/**
 * The policy as written by a user (config file `{ "sandbox": {...} }`) or passed per call.
 * Every field is optional; {@link resolvePolicy} fills in the defaults. Unknown keys are an
 * error (a typo such as `netwrok` must not silently leave the network at its default).
 */
export const SandboxPolicyInputSchema = z
  .strictObject({
    mode: SandboxModeSchema.optional().describe(
      "undefined: 'workspace-write'. 'danger-full-access' disables the sandbox and is only ever used when named here.",
    ),
    writableRoots: z
      .array(policyPathSchema)
      .optional()
      .describe(
        'Directories writable besides the workspace and the private temp dir (workspace-write only). ' +
          'undefined and []: none. A filled list: these too, each an existing directory that is not a symlink and not ' +
          'inside a denyRead path. A later source (per-call over file) replaces the list.',
      ),
    denyRead: z
      .array(policyPathSchema)
      .optional()
      .describe(
        'Paths the command cannot read (directories are hidden behind an empty mount, files read as empty). ' +
          'undefined and []: only the defaults (~/.ssh, ~/.aws, ... unless useDefaultDenyRead is false). ' +
          'A filled list: added to the defaults; lists from several sources are merged, never dropped. ' +
          'A path covering the workspace, one of its ancestors or a writable root is an error.',
      ),
    useDefaultDenyRead: z
      .boolean()
      .optional()
      .describe('undefined and true: DEFAULT_DENY_READ is denied as well. false: only the denyRead list.'),
    network: z
      .boolean()
      .optional()
      .describe(
        'undefined and false: no network (own network namespace, no unix sockets, no DNS). true: the host network.',
      ),
    protectGit: z
      .union([z.literal(true), z.literal('hooks')])
      .optional()
      .describe(
        "How every existing .git inside a writable root (at any depth, and a .git file's gitdir) is protected. " +
          "undefined and true: read-only (git status/log/diff work, commits fail). 'hooks': only hooks/ and config " +
          'are read-only, so commits work. There is no off switch.',
      ),
    allowEnv: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
      .optional()
      .describe(
        'Names of secret-looking environment variables (TOKEN, SECRET, PASSWORD, KEY, credentials, ...) to pass through. ' +
          'undefined and []: every secret-looking variable is dropped. A filled list: exactly these names are kept.',
      ),
    readOnlyPaths: z
      .array(policyPathSchema)
      .optional()
      .describe(
        'Extra paths inside writable roots that stay read-only, existing or not. undefined and []: none beyond the ' +
          'built-in protected paths. A filled list: these too; lists from several sources are merged.',
      ),
  })
  .describe('Sandbox policy as written in safeturn.config.json under "sandbox", or passed per call.');

/** A partial policy as written by a user. */
export type SandboxPolicyInput = z.infer<typeof SandboxPolicyInputSchema>;

const absolutePathSchema = z
  .string()
  .refine((value) => value.startsWith('/') && !value.includes('\0'), 'must be an absolute path');

/**
 * A resolved policy: every default filled in, every path absolute (and realpath'd where it
 * exists). Produced by {@link resolvePolicy}; what `wrapCommand`, `checkWritePath` and the
 * `/sandbox` handler take.
 */
export const SandboxPolicySchema = z
  .strictObject({
    mode: SandboxModeSchema,
    workspace: absolutePathSchema.describe('The realpath of the workspace; writable in workspace-write.'),
    homeDirectory: absolutePathSchema.describe(
      'HOME as the command sees it; used for ~ paths and the rc-file protection.',
    ),
    safeturnHome: absolutePathSchema.describe(
      "safeturn's data directory; always read-only inside the sandbox.",
    ),
    writableRoots: z.array(absolutePathSchema).describe('Realpaths of the extra writable directories.'),
    denyRead: z.array(absolutePathSchema).describe('Absolute paths masked from reading (defaults included).'),
    network: z.boolean().describe('Whether the host network is reachable.'),
    protectGit: z
      .union([z.literal(true), z.literal('hooks')])
      .describe('See SandboxPolicyInputSchema.protectGit.'),
    allowEnv: z.array(z.string()).describe('Secret-looking variable names passed through.'),
    readOnlyPaths: z.array(absolutePathSchema).describe('Extra read-only paths inside writable roots.'),
  })
  .describe('A fully resolved sandbox policy.');

/** A fully resolved sandbox policy (see {@link SandboxPolicySchema}). */
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>;
