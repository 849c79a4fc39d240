import path from 'node:path';
import { type Command, Option } from 'commander';
import { handleSandbox } from '../../sandbox/handle-sandbox.js';
import { resolvePolicy } from '../../sandbox/resolve-policy.js';
import { runSandboxed } from '../../sandbox/run-sandboxed.js';
import type { WorktreeMergeStrategy } from '../../worktree/merge-types.js';
import { type CommonOptions, openSession } from '../context.js';
import { formatMergeReport, formatWorktree } from '../format-worktree.js';
import { createOutput, EXIT } from '../output.js';
import { withCommon } from './with-common.js';

/** One word of an argv as a POSIX shell word: bare when safe, else single-quoted. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** `safeturn sandbox [run -- CMD]` and `safeturn worktree list|merge|discard`. */
export function registerLayerCommands(program: Command, setExit: (code: number) => void): void {
  const sandbox = program
    .command('sandbox')
    .description('show the sandbox policy, or run one command under it');
  withCommon(
    sandbox
      .command('show', { isDefault: true })
      .description('the policy in force for the workspace (defaults merged with safeturn.config.json)')
      .option('-c, --config <file>', 'an explicit config file'),
  ).action(async (options: CommonOptions & { config?: string }) => {
    const out = createOutput(options.json ?? false);
    const policy = await resolvePolicy(undefined, {
      workspace: path.resolve(options.workspace),
      ...(options.config ? { configPath: options.config } : {}),
      ...(options.home ? { safeturnHome: options.home } : {}),
    });
    const shown = handleSandbox({ getPolicy: () => policy, setPolicy: () => undefined }, '');
    out.record('sandbox-policy', { policy });
    out.say(shown.text);
    setExit(EXIT.done);
  });
  withCommon(
    sandbox
      .command('run')
      .description(
        'run one command under the policy (bash -lc); exits with its exit code, 2 when it could not be sandboxed. One argument is a shell string (`-- \'echo $HOME && ls\'`); several are an argv, each word quoted (`-- ls -la "my dir"`)',
      )
      .argument('<command...>', 'after --: one shell string, or a command and its arguments')
      .option('-c, --config <file>', 'an explicit config file')
      .option('--network', 'allow network for this command'),
  ).action(async (words: string[], options: CommonOptions & { config?: string; network?: boolean }) => {
    const out = createOutput(options.json ?? false);
    const policy = await resolvePolicy(options.network ? { network: true } : undefined, {
      workspace: path.resolve(options.workspace),
      ...(options.config ? { configPath: options.config } : {}),
      ...(options.home ? { safeturnHome: options.home } : {}),
    });
    const command = words.length === 1 ? words[0]! : words.map(shellQuote).join(' ');
    const result = await runSandboxed(command, { policy, cwd: policy.workspace });
    if (!out.json) {
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
    }
    out.record('sandbox-run', {
      command,
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.exitCode,
      signal: result.signal,
      cleanup: result.cleanup,
      droppedEnv: result.droppedEnv,
    });
    for (const hook of result.cleanup.removedHooks ?? [])
      out.warn(`safeturn: removed a git hook the command created: ${hook}`);
    setExit(result.exitCode ?? EXIT.didNotRun);
  });

  const worktree = program
    .command('worktree')
    .description('list, merge or discard the agent worktrees of a workspace');
  withCommon(
    worktree
      .command('list')
      .description('every worktree: name, branch, base, created at, changed files, on disk'),
  ).action(async (options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'existing', { readOnly: true });
    const list = await session.worktrees.list();
    for (const item of list) out.record('worktree', { ...item });
    out.say(list.length === 0 ? 'No worktrees.' : list.map(formatWorktree).join('\n'));
    setExit(EXIT.done);
  });
  withCommon(
    worktree
      .command('merge')
      .argument('<name>')
      .description('bring a worktree back as uncommitted changes (rewindable)')
      .addOption(
        new Option('--strategy <strategy>', 'on conflicts (default: refuse, change nothing)').choices([
          'ours',
          'theirs',
          'markers',
        ]),
      ),
  ).action(async (name: string, options: CommonOptions & { strategy?: WorktreeMergeStrategy }) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options, 'latest-or-new');
    await session.beginTurn({ label: `safeturn worktree merge ${name}` });
    let failed = 0;
    try {
      const report = await session.worktrees.merge({
        name,
        ...(options.strategy ? { strategy: options.strategy } : {}),
      });
      failed = report.failed.length;
      out.record('worktree-merge', { ...report });
      out.say(formatMergeReport(report));
    } finally {
      await session.endTurn();
      await session.close();
    }
    setExit(failed > 0 ? EXIT.partial : EXIT.done);
  });
  withCommon(
    worktree.command('discard').argument('<name>').description('remove a worktree, its branch and its lock'),
  ).action(async (name: string, options: CommonOptions) => {
    const out = createOutput(options.json ?? false);
    const session = await openSession(options);
    const result = await session.worktrees.discard({ name });
    out.record('worktree-discard', { ...result });
    out.say(`Discarded worktree ${name}.`);
    setExit(EXIT.done);
  });
}
