import { withoutRedirectingGitVariables } from '../core/git-environment.js';
/** A real-git command line for the shadow repository, as an argv array (never a shell string). */
export interface ShadowGitCommand {
  file: 'git';
  args: string[];
  env: Record<string, string>;
}

/** Options of {@link shadowGitCommand}. */
export interface ShadowGitCommandOptions {
  /** The shadow repository (`ShadowRepo.gitdir`). */
  gitdir: string;
  /** git arguments after `--git-dir`, e.g. `['log', 'refs/safeturn/s1']`. */
  args: string[];
  /** Environment to start from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Builds a command that runs the real git CLI on the shadow repository only: `--git-dir` set,
 * `GIT_DIR` & co. removed from the environment, the user's system and global config ignored
 * (the shadow repository has its own private config), no prompts.
 *
 * @returns `{ file, args, env }` for execa or `child_process.execFile`.
 * @example
 * ```ts
 * const command = shadowGitCommand({ gitdir: repo.gitdir, args: ['fsck', '--strict'] });
 * await execa(command.file, command.args, { env: command.env, extendEnv: false });
 * ```
 */
export function shadowGitCommand(options: ShadowGitCommandOptions): ShadowGitCommand {
  const env = withoutRedirectingGitVariables(options.env ?? process.env);
  for (const key of Object.keys(env)) if (key.startsWith('GIT_CONFIG')) delete env[key];
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = '/dev/null';
  env.GIT_TERMINAL_PROMPT = '0';
  return { file: 'git', args: [`--git-dir=${options.gitdir}`, ...options.args], env };
}
