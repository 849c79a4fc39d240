import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSession } from '../../src/loop/create-session.js';
import { exists, tempDir } from '../helpers.js';

const bin = path.resolve('bin/safeturn.js');
const linux = process.platform === 'linux';

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function project() {
  const base = await tempDir();
  const workspace = path.join(base, 'project');
  const home = path.join(base, 'safeturn-home');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'a.txt'), 'keep me\n');
  return { base, workspace, home, env: { PATH: process.env.PATH ?? '', HOME: base, SAFETURN_HOME: home } };
}

/** Runs the built binary with raw stdin lines; resolves after it exits. */
function runRaw(args: string[], env: NodeJS.ProcessEnv, lines: unknown[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answered = 0;
    const expected = lines.filter((line) => (line as { id?: unknown }).id !== undefined).length;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      answered = stdout.split('\n').filter(Boolean).length;
      // Close stdin once every request was answered: the server must then stop on its own.
      if (answered >= expected) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
    if (expected === 0) child.stdin.end();
  });
}

describe('safeturn mcp as a process', () => {
  it('stdout carries only JSON-RPC; closing stdin ends the open turn and exits 0', async () => {
    const { workspace, home, env } = await project();
    const result = await runRaw(['mcp', '--workspace', workspace, '--session', 'raw'], env, [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'write',
          arguments: { path: 'n.md', content: 'n\n' },
          _meta: { 'safeturn/turn': 'msg-1', 'safeturn/label': 'Write n.md' },
        },
      },
    ]);
    expect(result.code).toBe(0);
    const messages = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: Record<string, unknown> });
    expect(messages.map((message) => [message.jsonrpc, message.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    expect(messages[0]?.result?.serverInfo).toMatchObject({ name: 'safeturn' });
    expect(messages[1]?.result).toMatchObject({
      content: [{ type: 'text', text: 'Created n.md (2 bytes).' }],
    });
    expect(result.stderr).toBe(`safeturn mcp: serving session raw for ${workspace}\n`);

    const session = await createSession({ workspace, home, sessionId: 'raw' });
    const [point] = session.rollbackPoints();
    expect(point).toMatchObject({ turnId: 't1', label: 'Write n.md', files: ['n.md'] });
    expect(point?.endedAt).toBeDefined();
    await session.close();
  });

  it('a workspace that does not exist: exit 2, the code on stderr, nothing on stdout', async () => {
    const { base, env } = await project();
    const result = await runRaw(['mcp', '--workspace', path.join(base, 'missing')], env, []);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^safeturn: INVALID_INPUT: Workspace .*missing is not an existing directory\.\n$/,
    );
  });

  it('case C17 (over MCP): files a bash call creates are removed by rewind', async () => {
    const { workspace, home, env } = await project();
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp', '--workspace', workspace, '--home', home, '--no-sandbox'],
        env,
        stderr: 'ignore',
      }),
    );
    onTestFinished(() => client.close());
    const ran = (await client.callTool({
      name: 'bash',
      arguments: { command: "printf 'print(1)\\n' > gen.py && mkdir -p out && echo x > out/x.txt" },
    })) as CallToolResult;
    expect(ran.isError).toBeUndefined();
    expect(await exists(workspace, 'gen.py')).toBe(true);
    const rewound = (await client.callTool({ name: 'rewind', arguments: { number: 1 } })) as CallToolResult;
    expect(rewound.structuredContent).toMatchObject({ deleted: ['gen.py', 'out/x.txt'] });
    expect(await exists(workspace, 'gen.py')).toBe(false);
    expect(await exists(workspace, 'out')).toBe(false);
    expect(await exists(workspace, 'a.txt')).toBe(true);
  });

  it.skipIf(!linux)(
    '--sandbox: bash writes inside the workspace but not next to it (bwrap; Linux only)',
    async () => {
      const { base, workspace, home, env } = await project();
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, 'mcp', '--workspace', workspace, '--home', home, '--sandbox'],
          env,
          stderr: 'ignore',
        }),
      );
      onTestFinished(() => client.close());
      const inside = (await client.callTool({
        name: 'bash',
        arguments: { command: 'echo in > inside.txt' },
      })) as CallToolResult;
      expect(inside.isError).toBeUndefined();
      expect(await exists(workspace, 'inside.txt')).toBe(true);
      const outside = (await client.callTool({
        name: 'bash',
        arguments: { command: 'echo out > ../outside.txt' },
      })) as CallToolResult;
      expect(outside.structuredContent).toMatchObject({ ok: true, data: { exitCode: 1, sandbox: {} } });
      expect(text(outside)).toContain('../outside.txt: Read-only file system');
      expect(await exists(base, 'outside.txt')).toBe(false);
    },
  );
});
