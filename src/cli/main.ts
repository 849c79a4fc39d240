import { Command, CommanderError } from 'commander';
import { SafeturnError } from '../errors/safeturn-error.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerHistoryCommands } from './commands/history.js';
import { registerLayerCommands } from './commands/layers.js';
import { registerMaintenanceCommands } from './commands/maintenance.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerShadowCommands } from './commands/shadow.js';
import { EXIT, JSON_OUTPUT_VERSION } from './output.js';

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
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.done : EXIT.didNotRun;
    }
    const json = argv.includes('--json');
    if (SafeturnError.isInstance(error)) {
      if (json)
        process.stdout.write(
          `${JSON.stringify({ v: JSON_OUTPUT_VERSION, type: 'error', ...error.toJSON() })}\n`,
        );
      process.stderr.write(`safeturn: ${error.code}: ${error.message}\n`);
      return EXIT.didNotRun;
    }
    process.stderr.write(
      `safeturn: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.didNotRun;
  }
}
