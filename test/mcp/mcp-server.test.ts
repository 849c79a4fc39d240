import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSession } from '../../src/loop/create-session.js';
import { exists, tempDir } from '../helpers.js';

const bin = path.resolve('bin/safeturn.js');

/** Spawns the built `safeturn mcp` and connects the SDK's own client over real stdio. */
async function connect(extraArgs: string[] = []) {
  const base = await tempDir();
  const workspace = path.join(base, 'project');
  const home = path.join(base, 'safeturn-home');
  await mkdir(workspace);
  await writeFile(path.join(workspace, 'a.txt'), 'keep me\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--workspace', workspace, '--home', home, '--session', 'mcp-test', ...extraArgs],
    env: { PATH: process.env.PATH ?? '', HOME: base, SAFETURN_HOME: home },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'safeturn-test', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
  return { client, call, workspace, home, stderr: () => stderr };
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('safeturn mcp over stdio (the built binary, the SDK client)', () => {
  it('lists the wrapped tools with their input schemas, plus rewind, redo and rollback_points', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'apply_patch',
      'bash',
      'edit',
      'read',
      'redo',
      'rewind',
      'rollback_points',
      'worktree_create',
      'worktree_discard',
      'worktree_list',
      'worktree_merge',
      'write',
    ]);
    const write = tools.find((tool) => tool.name === 'write');
    expect(write?.inputSchema.type).toBe('object');
    expect(Object.keys(write?.inputSchema.properties ?? {}).sort()).toEqual(['content', 'path']);
    expect(write?.inputSchema.required).toEqual(['path', 'content']);
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name);
    expect(readOnly.sort()).toEqual(['read', 'rollback_points']);
  });

  it('case C1 (over MCP): a file written through MCP is listed as a rollback point and removed by rewind', async () => {
    const { call, workspace, stderr } = await connect();
    const written = await call('write', { path: 'Foo.md', content: '# Foo\n' });
    expect(written.isError).toBeUndefined();
    expect(text(written)).toBe('Created Foo.md (6 bytes).');
    expect(written._meta).toEqual({ 'safeturn/turn': 't1' });
    expect(await readFile(path.join(workspace, 'Foo.md'), 'utf8')).toBe('# Foo\n');

    const points = await call('rollback_points', {});
    expect(points.isError).toBeUndefined();
    const listed = (points.structuredContent as { points: Array<Record<string, unknown>> }).points;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      number: 1,
      turnId: 't1',
      label: 'mcp write Foo.md',
      files: ['Foo.md'],
    });
    expect(text(points)).toContain('t1  mcp write Foo.md\n     Foo.md');

    const dryRun = await call('rewind', { number: 1, dry_run: true });
    expect(dryRun.structuredContent).toMatchObject({ dryRun: true, deleted: ['Foo.md'] });
    expect(await exists(workspace, 'Foo.md')).toBe(true);

    const rewound = await call('rewind', { number: 1 });
    expect(rewound.isError).toBeUndefined();
    expect(text(rewound)).toContain('deleted   Foo.md');
    expect(await exists(workspace, 'Foo.md')).toBe(false);
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('keep me\n');
    expect(stderr()).toContain('serving session mcp-test');
  });

  it('a guard refusal is an isError result with GUARD_NEVER_READ in the text and structuredContent', async () => {
    const { call, workspace } = await connect();
    const refused = await call('write', { path: 'a.txt', content: 'overwritten\n' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^GUARD_NEVER_READ: /);
    expect(refused.structuredContent).toMatchObject({ ok: false, error: { code: 'GUARD_NEVER_READ' } });
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('keep me\n');

    const read = await call('read', { path: 'a.txt' });
    expect(read.isError).toBeUndefined();
    const allowed = await call('write', { path: 'a.txt', content: 'overwritten\n' });
    expect(allowed.isError).toBeUndefined();
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('overwritten\n');
  });

  it('a write outside the workspace is refused and nothing is written there', async () => {
    const { call, workspace } = await connect();
    const outside = path.join(path.dirname(workspace), 'escaped.txt');
    for (const target of ['../escaped.txt', outside]) {
      const refused = await call('write', { path: target, content: 'x' });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^PATH_OUTSIDE_WORKSPACE: /);
      expect(refused.structuredContent).toMatchObject({ error: { code: 'PATH_OUTSIDE_WORKSPACE' } });
    }
    expect(await exists(path.dirname(workspace), 'escaped.txt')).toBe(false);
  });

  it('calls with the same _meta turn id share one turn; endTurn and a new id close it', async () => {
    const { call, workspace, home } = await connect();
    const meta = { 'safeturn/turn': 'user-msg-1', 'safeturn/label': 'Add two notes' };
    const first = await call('write', { path: 'one.md', content: '1\n' }, meta);
    const second = await call(
      'write',
      { path: 'two.md', content: '2\n' },
      { ...meta, 'safeturn/endTurn': true },
    );
    const third = await call(
      'write',
      { path: 'three.md', content: '3\n' },
      { 'safeturn/turn': 'user-msg-2' },
    );
    const fourth = await call(
      'write',
      { path: 'four.md', content: '4\n' },
      { 'safeturn/turn': 'user-msg-3' },
    );
    expect([first, second, third, fourth].map((result) => result._meta?.['safeturn/turn'])).toEqual([
      't1',
      't1',
      't2',
      't3',
    ]);
    const points = (await call('rollback_points', {})).structuredContent as {
      points: Array<{ turnId: string; label: string; files: string[] }>;
    };
    expect(points.points.map(({ turnId, label, files }) => ({ turnId, label, files }))).toEqual([
      { turnId: 't3', label: 'user-msg-3: mcp write four.md', files: ['four.md'] },
      { turnId: 't2', label: 'user-msg-2: mcp write three.md', files: ['three.md'] },
      { turnId: 't1', label: 'Add two notes', files: ['one.md', 'two.md'] },
    ]);
    const rewound = await call('rewind', { turn: 't2' });
    expect(rewound.structuredContent).toMatchObject({ turns: ['t2', 't3'] });
    expect(await exists(workspace, 'one.md')).toBe(true);
    expect(await exists(workspace, 'two.md')).toBe(true);
    expect(await exists(workspace, 'three.md')).toBe(false);
    expect(await exists(workspace, 'four.md')).toBe(false);

    // The session is on disk: the library sees the same rollback points.
    const session = await createSession({ workspace, home, sessionId: 'mcp-test', readOnly: true });
    expect(session.rollbackPoints().map((point) => point.turnId)).toEqual(['t1']);
    await session.close();
  });

  it('rewind input errors and unknown turns come back as isError results with their codes', async () => {
    const { call } = await connect();
    const both = await call('rewind', { number: 1, turn: 't1' });
    expect(both.isError).toBe(true);
    expect(text(both)).toMatch(/^INVALID_INPUT: /);
    const none = await call('rewind', { number: 3 });
    expect(none.isError).toBe(true);
    expect(none.structuredContent).toMatchObject({ error: { code: 'NO_SUCH_TURN' } });
    const badInput = await call('write', { path: 'x.md' });
    expect(badInput.isError).toBe(true);
    expect(text(badInput)).toMatch(/^INVALID_INPUT: Invalid input for write: content: /);
  });

  it('case C6 (over MCP): REWIND_CONFLICT when the user edited the file since; force overwrites; redo brings the edit back', async () => {
    const { call, workspace } = await connect();
    await writeFile(path.join(workspace, 'f.ts'), 'v1\n');
    expect((await call('read', { path: 'f.ts' })).isError).toBeUndefined();
    const edited = await call('edit', { path: 'f.ts', old_string: 'v1', new_string: 'v2' });
    expect(edited.isError).toBeUndefined();
    expect(await readFile(path.join(workspace, 'f.ts'), 'utf8')).toBe('v2\n');
    await writeFile(path.join(workspace, 'f.ts'), 'v3 by hand\n');
    const refused = await call('rewind', { number: 1 });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: { code: 'REWIND_CONFLICT', data: { paths: ['f.ts'] } },
    });
    expect(await readFile(path.join(workspace, 'f.ts'), 'utf8')).toBe('v3 by hand\n');
    // Rollback point 1 is the edit's own turn (the read was a turn of its own before it).
    const forced = await call('rewind', { number: 1, force: true });
    expect(forced.isError).toBeUndefined();
    expect(forced.structuredContent).toMatchObject({ restored: ['f.ts'], overwritten: ['f.ts'] });
    expect(await readFile(path.join(workspace, 'f.ts'), 'utf8')).toBe('v1\n');
    // redo brings the hand edit back.
    const redone = await call('redo', {});
    expect(redone.isError).toBeUndefined();
    expect(text(redone)).toMatch(/^Redid /);
    expect(await readFile(path.join(workspace, 'f.ts'), 'utf8')).toBe('v3 by hand\n');
    const again = await call('redo', {});
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/^REDO_UNAVAILABLE: /);
  });
});
