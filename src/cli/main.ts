import { Command, CommanderError } from 'commander';
import { registerDemoCommand } from './commands/demo.js';
import { registerHistoryCommands } from './commands/history.js';
import { registerLayerCommands } from './commands/layers.js';
import { registerMaintenanceCommands } from './commands/maintenance.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerShadowCommands } from './commands/shadow.js';
import { EXIT } from './output.js';
import { reportError } from './report-error.js';

/**
 * Runs the `safeturn` command line.
 *
 * @param argv - arguments after the program name.
 * @returns the exit code: 0 done, 1 done with some files failed, 2 did not run.
 */
export async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.done;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = new Command('safeturn')
    .description('The undo button and safety net for AI coding agents.')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      writeOut: (text) => process.stdout.write(text),
    });
  registerDemoCommand(program, setExit);
  registerHistoryCommands(program, setExit);
  registerMaintenanceCommands(program, setExit);
  registerShadowCommands(program, setExit);
  registerLayerCommands(program, setExit);
  registerMcpCommand(program, setExit);
  for (const command of program.commands) command.exitOverride();
  const json = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    // --help and --version end through the same path, with exit code 0.
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT.done;
    reportError(error, { json });
    return EXIT.didNotRun;
  }
}
