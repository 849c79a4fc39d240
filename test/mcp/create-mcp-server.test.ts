import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Session } from '../../src/loop/session.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { exists, git, setup, writeFiles } from '../helpers.js';

/** An in-process server on a session, and the SDK client linked to it in memory. */
async function serve(session: Session) {
  const { server, endOpenTurn } = createMcpServer({ session });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientTransport);
  onTestFinished(async () => {
    await client.close();
    await endOpenTurn();
  });
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
  return { call, endOpenTurn };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('createMcpServer (in process, SDK client over an in-memory transport)', () => {
  it("calls run in a turn the host opened and never end it; the host's endTurn closes it", async () => {
    const { session, workspace } = await setup();
    const { call } = await serve(session);
    await session.beginTurn({ id: 'host-1', label: 'Host-managed turn' });
    const first = await call('write', { path: 'x.md', content: 'x\n' });
    const second = await call(
      'write',
      { path: 'y.md', content: 'y\n' },
      { 'safeturn/turn': 'other', 'safeturn/endTurn': true },
    );
    expect([first._meta, second._meta]).toEqual([
      { 'safeturn/turn': 'host-1' },
      { 'safeturn/turn': 'host-1' },
    ]);
    expect(session.currentTurn()?.id).toBe('host-1');
    // A rewind cannot run inside the host's turn: reported, nothing written.
    const refused = await call('rewind', { number: 1 });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^TURN_STATE: /);
    await session.endTurn();
    expect(session.rollbackPoints().map(({ turnId, files }) => ({ turnId, files }))).toEqual([
      { turnId: 'host-1', files: ['x.md', 'y.md'] },
    ]);
    const rewound = await call('rewind', { turn: 'host-1' });
    expect(rewound.structuredContent).toMatchObject({ deleted: ['x.md', 'y.md'] });
    expect(await exists(workspace, 'x.md')).toBe(false);
  });

  it('an open client turn is ended by a call without a turn id and by endOpenTurn()', async () => {
    const { session } = await setup();
    const { call, endOpenTurn } = await serve(session);
    await call('write', { path: 'a.md', content: 'a\n' }, { 'safeturn/turn': 'm1' });
    expect(session.currentTurn()?.id).toBe('t1');
    await call('write', { path: 'b.md', content: 'b\n' });
    expect(session.currentTurn()).toBeUndefined();
    await call('write', { path: 'c.md', content: 'c\n' }, { 'safeturn/turn': 'm2' });
    expect(session.currentTurn()?.id).toBe('t3');
    await endOpenTurn();
    expect(session.currentTurn()).toBeUndefined();
    expect(session.rollbackPoints().map(({ turnId, files }) => [turnId, files])).toEqual([
      ['t3', ['c.md']],
      ['t2', ['b.md']],
      ['t1', ['a.md']],
    ]);
  });

  it('an unknown tool is an isError result with UNKNOWN_TOOL', async () => {
    const { session } = await setup();
    const { call } = await serve(session);
    const result = await call('frobnicate', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('UNKNOWN_TOOL: No tool named "frobnicate".');
  });

  it('case W1 (over MCP): worktree_create, a write inside it, worktree_merge; one rewind undoes the merge', async () => {
    const { session, workspace } = await setup();
    await writeFiles(workspace, { 'README.md': '# project\n' });
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'first');
    await writeFiles(workspace, { 'README.md': '# project\nedited\n', 'notes.txt': 'untracked\n' });
    const { call } = await serve(session);

    const created = await call('worktree_create', { name: 'try' }, { 'safeturn/turn': 'm1' });
    expect(created.isError).toBeUndefined();
    const worktreeRoot = (created.structuredContent as { data: { root: string } }).data.root;
    expect(session.root).toBe(worktreeRoot);
    // The user's uncommitted edit and untracked file were carried into the worktree.
    expect(await readFile(path.join(worktreeRoot, 'README.md'), 'utf8')).toBe('# project\nedited\n');
    expect(await readFile(path.join(worktreeRoot, 'notes.txt'), 'utf8')).toBe('untracked\n');
    const written = await call(
      'write',
      { path: 'new.ts', content: 'export {};\n' },
      { 'safeturn/turn': 'm1' },
    );
    expect(written.isError).toBeUndefined();
    expect(await readFile(path.join(worktreeRoot, 'new.ts'), 'utf8')).toBe('export {};\n');
    expect(await exists(workspace, 'new.ts')).toBe(false);

    const merged = await call('worktree_merge', { name: 'try' }, { 'safeturn/turn': 'm2' });
    expect(merged.isError).toBeUndefined();
    expect(await readFile(path.join(workspace, 'new.ts'), 'utf8')).toBe('export {};\n');

    const rewound = await call('rewind', { number: 1 });
    expect(rewound.isError).toBeUndefined();
    expect(await exists(workspace, 'new.ts')).toBe(false);
    expect(await readFile(path.join(workspace, 'README.md'), 'utf8')).toBe('# project\nedited\n');
    expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).toBe('untracked\n');
  });
});
