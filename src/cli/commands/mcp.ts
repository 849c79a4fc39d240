import { type Command, Option } from 'commander';
import { listSessions } from '../../loop/session-discovery.js';
import { EXIT } from '../output.js';

interface McpCommandOptions {
  workspace: string;
  session?: string;
  home?: string;
  sandbox?: boolean;
  config?: string;
}

/**
 * `safeturn mcp`: serves the workspace's guarded, checkpointed tools plus `rewind` and
 * `rollback_points` over stdio (MCP) until the client closes stdin. stdout carries only MCP
 * messages; diagnostics go to stderr. Exit 0 after a clean stop, 2 when it could not start.
 */
export function registerMcpCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('mcp')
    .description('serve the guarded, rewindable file tools over MCP (stdio)')
    .addOption(
      new Option('-w, --workspace <dir>', 'the project directory').default(
        process.cwd(),
        'the current directory',
      ),
    )
    .addOption(
      new Option(
        '-s, --session <id>',
        'resume (or start) this session (default: the most recent session of the workspace, else a new one)',
      ),
    )
    .addOption(
      new Option('--home <dir>', "safeturn's data directory (default: $SAFETURN_HOME or ~/.safeturn)"),
    )
    .addOption(new Option('--sandbox', 'run bash under the sandbox (config file policy, else the defaults)'))
    .addOption(new Option('--no-sandbox', 'no sandbox, even when the config file has a sandbox section'))
    .addOption(new Option('--config <file>', 'an explicit safeturn config file'))
    .action(async (options: McpCommandOptions) => {
      // Loaded on use: other commands do not pay for the MCP SDK's import.
      const { runMcpServer } = await import('../../mcp/run-mcp-server.js');
      const log = (line: string) => process.stderr.write(`${line}\n`);
      // The newest session of the workspace, so `safeturn log` / `rewind` see what the client did.
      const sessionId =
        options.session ??
        (
          await listSessions({
            workspace: options.workspace,
            ...(options.home === undefined ? {} : { home: options.home }),
          })
        )[0]?.id;
      const handle = await runMcpServer({
        workspace: options.workspace,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(options.home === undefined ? {} : { home: options.home }),
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
        ...(options.config === undefined ? {} : { configPath: options.config }),
        log,
      });
      await handle.closed;
      setExit(EXIT.done);
    });
}
