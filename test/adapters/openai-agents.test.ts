import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  Usage,
} from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toOpenAiAgentsTools } from '../../src/adapters/openai-agents.js';
import { createSessionTools } from '../../src/loop/session-tools.js';
import type { SafeturnTool, ToolContext } from '../../src/loop/tool-types.js';
import { exists, setup, writeFiles } from '../helpers.js';

/** A model that answers with scripted outputs, one per request, and records what it was sent. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #script: ModelResponse['output'][];

  constructor(script: ModelResponse['output'][]) {
    this.#script = script;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.#script[this.requests.length - 1];
    if (!output) throw new Error('The script ran out of responses.');
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the runner under test never streams.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

function functionCall(callId: string, name: string, input: unknown) {
  return {
    type: 'function_call' as const,
    callId,
    name,
    arguments: JSON.stringify(input),
    status: 'completed' as const,
  };
}

const finalMessage = {
  type: 'message' as const,
  role: 'assistant' as const,
  status: 'completed' as const,
  content: [{ type: 'output_text' as const, text: 'Done.' }],
};

function functionOutputs(input: string | AgentInputItem[] | undefined): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const item of Array.isArray(input) ? input : []) {
    if (item.type === 'function_call_result') outputs[item.callId] = item.output;
  }
  return outputs;
}

describe('toOpenAiAgentsTools (OpenAI Agents SDK, an Agent run with a scripted model)', () => {
  it('case C1 (through the Agents SDK): a write by function call is checkpointed; a guard refusal reaches the model; rewind removes the file', async () => {
    const { session, workspace } = await setup();
    await writeFiles(workspace, { 'a.txt': 'line 1\nline 2\n' });
    const seen: ToolContext[] = [];
    const probe: SafeturnTool<{ note: string }, { ok: true; output: string }> = {
      description: 'Records the context it was called with.',
      inputSchema: z.object({ note: z.string() }),
      async execute(input, context) {
        seen.push(context);
        return { ok: true, output: `noted ${input.note}` };
      },
    };
    const model = new ScriptedModel([
      [
        functionCall('call-1', 'write', { path: 'Foo.md', content: '# Foo\n' }),
        functionCall('call-2', 'write', { path: 'a.txt', content: 'clobbered\n' }),
        // Strict tools send optional fields as null: offset/limit of read.
        functionCall('call-3', 'read', { path: 'a.txt', offset: 2, limit: null }),
        functionCall('call-4', 'probe', { note: 'hi' }),
      ],
      [finalMessage],
    ]);
    const agent = new Agent({
      name: 'coder',
      instructions: 'Edit files.',
      model,
      tools: toOpenAiAgentsTools({ tools: { ...createSessionTools(session), probe }, session }),
    });
    const runner = new Runner({ tracingDisabled: true });

    await session.beginTurn({ label: 'Write Foo.md' });
    const result = await runner.run(agent, 'Write Foo.md');
    await session.endTurn();

    expect(result.finalOutput).toBe('Done.');
    expect(await readFile(path.join(workspace, 'Foo.md'), 'utf8')).toBe('# Foo\n');
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('line 1\nline 2\n');

    const outputs = functionOutputs(model.requests[1]?.input);
    expect(outputs['call-1']).toEqual({ type: 'text', text: 'Created Foo.md (6 bytes).' });
    expect(outputs['call-2']).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^GUARD_NEVER_READ: /),
    });
    expect(outputs['call-3']).toMatchObject({ type: 'text', text: expect.stringContaining('line 2') });
    expect(outputs['call-3']).not.toMatchObject({ text: expect.stringContaining('line 1') });
    expect(outputs['call-4']).toEqual({ type: 'text', text: 'noted hi' });

    // The tools the model was offered carry the zod schemas as strict JSON Schema.
    const offered = model.requests[0]?.tools.find(
      (tool) => tool.type === 'function' && tool.name === 'write',
    );
    expect(offered).toMatchObject({
      type: 'function',
      strict: true,
      parameters: { type: 'object', required: ['path', 'content'] },
    });

    expect(seen).toHaveLength(1);
    expect(seen[0]?.root).toBe(workspace);
    expect(seen[0]?.toolCallId).toBe('call-4');

    expect(session.rollbackPoints().map((point) => point.files)).toEqual([['Foo.md']]);
    const rewound = await session.rewind(1);
    expect(rewound.deleted).toEqual(['Foo.md']);
    expect(await exists(workspace, 'Foo.md')).toBe(false);
  });

  it('a tool whose schema is not a zod object is offered as non-strict JSON Schema and validated by safeturn', async () => {
    const { session } = await setup();
    const inputs: unknown[] = [];
    const loose: SafeturnTool<string | { name: string }, { ok: true; output: string }> = {
      description: 'Takes a union.',
      inputSchema: z.union([z.string(), z.object({ name: z.string() })]),
      async execute(input) {
        inputs.push(input);
        return { ok: true, output: 'fine' };
      },
    };
    const model = new ScriptedModel([[functionCall('c1', 'loose', { name: 'x' })], [finalMessage]]);
    const agent = new Agent({
      name: 'coder',
      model,
      tools: toOpenAiAgentsTools({ tools: { loose }, root: () => session.root }),
    });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'go');
    expect(result.finalOutput).toBe('Done.');
    expect(inputs).toEqual([{ name: 'x' }]);
    const offered = model.requests[0]?.tools[0];
    expect(offered).toMatchObject({ type: 'function', name: 'loose', strict: false });
  });
});
