import { realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveHome } from '../core/home.js';
import { CONFIG_FILE_NAME, DEFAULT_DENY_READ } from './default-deny-read.js';
import { expandHome, isSameOrInside, realpathOfDeepestExisting } from './path-utilities.js';
import { parsePolicyInput, readPolicyConfigFile } from './policy-config-file.js';
import type { SandboxPolicy, SandboxPolicyInput } from './policy-schema.js';
import { SandboxPolicyError } from './sandbox-policy-error.js';

/** Where {@link resolvePolicy} resolves a policy: the workspace, the environment, the config file. */
export interface ResolvePolicyEnvironment {
  /** The workspace directory (absolute; may be reached through a symlink, it is realpath'd). */
  workspace: string;
  /** Environment for `HOME` and `SAFETURN_HOME`. @default process.env */
  env?: Record<string, string | undefined>;
  /** An explicit config file; must exist. @default `<workspace>/safeturn.config.json` when present */
  configPath?: string;
  /** Set false to ignore config files entirely. @default true */
  readConfigFile?: boolean;
  /** safeturn's home; wins over `env.SAFETURN_HOME`. */
  safeturnHome?: string;
}

interface LabelledPath {
  value: string;
  field: string;
}

function labelled(list: readonly string[] | undefined, field: string): LabelledPath[] {
  return (list ?? []).map((value, index) => ({ value, field: `${field}[${index}]` }));
}

async function resolveWorkspace(input: string): Promise<string> {
  if (!path.isAbsolute(input)) {
    throw new SandboxPolicyError(
      'workspace',
      `The workspace ${JSON.stringify(input)} must be an absolute path.`,
    );
  }
  try {
    const real = await realpath(input);
    if (!(await stat(real)).isDirectory()) throw new Error('not a directory');
    return real;
  } catch (error) {
    throw new SandboxPolicyError('workspace', `The workspace ${input} is not an existing directory.`, {
      cause: error,
    });
  }
}

async function resolveWritableRoot(entry: LabelledPath, home: string): Promise<string> {
  const lexical = expandHome(entry.value, home);
  let real: string;
  try {
    real = await realpath(lexical);
    if (!(await stat(real)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new SandboxPolicyError(entry.field, `${entry.field}: ${lexical} is not an existing directory.`, {
      cause: error,
    });
  }
  if (real !== lexical) {
    throw new SandboxPolicyError(
      entry.field,
      `${entry.field}: ${lexical} resolves through a symlink to ${real}; list the real directory itself.`,
      { data: { path: lexical, realpath: real } },
    );
  }
  return real;
}

function mergeInputs(inputs: readonly { input: SandboxPolicyInput; prefix: string }[]) {
  let mode: SandboxPolicy['mode'] = 'workspace-write';
  let network = false;
  let protectGit: SandboxPolicy['protectGit'] = true;
  let useDefaultDenyRead = true;
  let writableRoots: LabelledPath[] = [];
  let allowEnv: string[] = [];
  const denyRead: LabelledPath[] = [];
  const readOnlyPaths: LabelledPath[] = [];
  for (const { input, prefix } of inputs) {
    if (input.mode !== undefined) mode = input.mode;
    if (input.network !== undefined) network = input.network;
    if (input.protectGit !== undefined) protectGit = input.protectGit;
    if (input.useDefaultDenyRead !== undefined) useDefaultDenyRead = input.useDefaultDenyRead;
    if (input.writableRoots !== undefined)
      writableRoots = labelled(input.writableRoots, `${prefix}writableRoots`);
    if (input.allowEnv !== undefined) allowEnv = [...input.allowEnv];
    denyRead.push(...labelled(input.denyRead, `${prefix}denyRead`));
    readOnlyPaths.push(...labelled(input.readOnlyPaths, `${prefix}readOnlyPaths`));
  }
  if (useDefaultDenyRead) denyRead.unshift(...labelled(DEFAULT_DENY_READ, 'DEFAULT_DENY_READ'));
  return { mode, network, protectGit, writableRoots, allowEnv, denyRead, readOnlyPaths };
}

/**
 * Resolves a sandbox policy: defaults, then the config file's `sandbox` section, then the
 * per-call `partial` (scalars: later wins; `writableRoots` and `allowEnv`: later replaces;
 * `denyRead` and `readOnlyPaths`: merged). Every path is made absolute and checked; anything
 * that cannot be enforced safely is an error naming the field, never silently dropped.
 *
 * @param partial - per-call overrides (untrusted; validated with the schema).
 * @param environment - the workspace, environment and config file location.
 * @returns a {@link SandboxPolicy}.
 * @throws SandboxPolicyError `SANDBOX_POLICY`: invalid file or field; a denyRead covering the workspace,
 *   one of its ancestors or a writable root; a writable root that is missing or resolves through a symlink;
 *   a glob; a workspace of `/` outside danger-full-access.
 * @example
 * ```ts
 * const policy = await resolvePolicy({ network: true }, { workspace: '/home/me/project' });
 * ```
 */
export async function resolvePolicy(
  partial: SandboxPolicyInput | undefined,
  environment: ResolvePolicyEnvironment,
): Promise<SandboxPolicy> {
  const env = environment.env ?? process.env;
  const workspace = await resolveWorkspace(environment.workspace);
  const rawHome = env.HOME ?? os.homedir();
  const homeDirectory = await realpathOfDeepestExisting(path.resolve(rawHome));
  const safeturnHome = await realpathOfDeepestExisting(
    resolveHome(environment.safeturnHome, env as NodeJS.ProcessEnv),
  );
  const inputs: { input: SandboxPolicyInput; prefix: string }[] = [];
  if (environment.readConfigFile !== false) {
    const explicit = environment.configPath !== undefined;
    const file = explicit
      ? path.resolve(workspace, environment.configPath!)
      : path.join(workspace, CONFIG_FILE_NAME);
    const fromFile = await readPolicyConfigFile(file, explicit);
    if (fromFile !== undefined) inputs.push({ input: fromFile, prefix: 'sandbox.' });
  }
  if (partial !== undefined)
    inputs.push({ input: parsePolicyInput(partial, 'overrides'), prefix: 'overrides.' });
  const merged = mergeInputs(inputs);

  if (workspace === '/' && merged.mode !== 'danger-full-access') {
    throw new SandboxPolicyError(
      'workspace',
      'The workspace cannot be / : that would make the whole system writable.',
    );
  }
  const writableRoots: string[] = [];
  for (const entry of merged.writableRoots)
    writableRoots.push(await resolveWritableRoot(entry, homeDirectory));

  const denyRead: string[] = [];
  for (const entry of merged.denyRead) {
    const lexical = expandHome(entry.value, homeDirectory);
    const real = await realpathOfDeepestExisting(lexical);
    for (const candidate of new Set([lexical, real])) {
      if (isSameOrInside(candidate, workspace)) {
        throw new SandboxPolicyError(
          entry.field,
          `${entry.field}: ${candidate} covers the workspace ${workspace}; a command could not even start there. Remove it or narrow it.`,
          { data: { path: candidate, workspace } },
        );
      }
      for (const root of writableRoots) {
        if (isSameOrInside(candidate, root)) {
          throw new SandboxPolicyError(
            entry.field,
            `${entry.field}: ${candidate} covers the writable root ${root}.`,
            {
              data: { path: candidate, writableRoot: root },
            },
          );
        }
      }
    }
    if (!denyRead.includes(real)) denyRead.push(real);
  }
  const readOnlyPaths: string[] = [];
  for (const entry of merged.readOnlyPaths) {
    const real = await realpathOfDeepestExisting(expandHome(entry.value, homeDirectory));
    if (!readOnlyPaths.includes(real)) readOnlyPaths.push(real);
  }
  return {
    mode: merged.mode,
    workspace,
    homeDirectory,
    safeturnHome,
    writableRoots,
    denyRead,
    network: merged.network,
    protectGit: merged.protectGit,
    allowEnv: merged.allowEnv,
    readOnlyPaths,
  };
}
