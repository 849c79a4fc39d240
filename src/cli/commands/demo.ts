import type { Command } from 'commander';
import { formatDemoTable, runDemo } from '../demo/run-demo.js';
import { createOutput, EXIT } from '../output.js';

/** `safeturn demo [--keep] [--json]`. */
export function registerDemoCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('build a small git project, run one agent turn through safeturn, and undo it five ways')
    .option('--keep', 'leave the temp directories on disk')
    .option('--json', 'versioned JSON Lines on stdout, prose on stderr')
    .action(async (options: { keep?: boolean; json?: boolean }) => {
      const out = createOutput(options.json ?? false);
      out.say(
        'safeturn demo: a git project with uncommitted edits, an untracked notes.md and a gitignored .env;',
      );
      out.say('one agent turn rewrites styles.css and app.js, edits index.html and .env, creates theme.css.');
      out.say('Then the turn is undone five ways, each on a fresh copy:\n');
      const result = await runDemo({ keep: options.keep ?? false, log: (line) => out.say(line) });
      for (const row of result.rows) out.record('demo-row', { ...row });
      out.say(`\n${formatDemoTable(result.rows)}`);
      if (options.keep) out.say(`\nDirectories kept in ${result.directory}`);
      const safeturnRow = result.rows[0];
      setExit(safeturnRow?.matches ? EXIT.done : EXIT.partial);
    });
}
