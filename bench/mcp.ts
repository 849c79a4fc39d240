import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSession } from '../src/loop/create-session.js';
import { createSessionTools } from '../src/loop/session-tools.js';
import { createMcpServer } from '../src/mcp/index.js';
import { type BenchContext, type BenchRow, median } from './harness.js';

const calls = 100;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/**
 * MCP server: what a tools/call costs on top of calling the wrapped tool directly (one turn per
 * call in both), through the SDK's client and an in-memory transport (no process, no pipe); then
 * rollback_points and rewind over MCP with 100+ turns in the session.
 */
export async function runBench(context: BenchContext): Promise<BenchRow[]> {
  const workspace = path.join(context.scratch, 'mcp-workspace');
  const home = path.join(context.scratch, 'mcp-home');
  await mkdir(workspace, { recursive: true });

  const direct = await createSession({ workspace, home, sessionId: 'direct', watchFiles: false });
  const tools = createSessionTools(direct);
  const directTimes: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    directTimes.push(
      await timed(async () => {
        await direct.beginTurn({ label: `direct ${index}` });
        await tools.write.execute(
          { path: `direct/f${index}.txt`, content: `${index}\n` },
          { root: direct.root },
        );
        await direct.endTurn();
      }),
    );
  }
  await direct.close();

  const session = await createSession({ workspace, home, sessionId: 'mcp', watchFiles: false });
  const { server, endOpenTurn } = createMcpServer({ session });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientTransport);
  const mcpTimes: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    mcpTimes.push(
      await timed(() =>
        client.callTool({ name: 'write', arguments: { path: `mcp/f${index}.txt`, content: `${index}\n` } }),
      ),
    );
  }
  const listTimes: number[] = [];
  for (let index = 0; index < 20; index += 1)
    listTimes.push(await timed(() => client.callTool({ name: 'rollback_points', arguments: { limit: 10 } })));
  const rewindTimes: number[] = [];
  for (let index = 0; index < 20; index += 1)
    rewindTimes.push(await timed(() => client.callTool({ name: 'rewind', arguments: { number: 1 } })));
  await client.close();
  await endOpenTurn();
  await session.close();

  const directMedian = median(directTimes);
  const mcpMedian = median(mcpTimes);
  return [
    {
      group: 'mcp',
      name: `write, one turn per call, direct (median of ${calls})`,
      value: directMedian,
      unit: 'ms',
    },
    {
      group: 'mcp',
      name: `write via MCP tools/call, in-memory transport (median of ${calls})`,
      value: mcpMedian,
      unit: 'ms',
      note: `+${(mcpMedian - directMedian).toFixed(2)} ms over direct`,
    },
    {
      group: 'mcp',
      name: `rollback_points via MCP, ${calls}+ turns (median of 20)`,
      value: median(listTimes),
      unit: 'ms',
    },
    { group: 'mcp', name: 'rewind 1 turn via MCP (median of 20)', value: median(rewindTimes), unit: 'ms' },
  ];
}
