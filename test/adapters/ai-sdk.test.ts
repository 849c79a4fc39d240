import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/adapters/ai-sdk.js';
import { createSessionTools } from '../../src/loop/session-tools.js';
import type { SafeturnTool, ToolContext } from '../../src/loop/tool-types.js';
import { exists, setup, writeFiles } from '../helpers.js';

type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function toolCalls(
  calls: Array<{ id: string; name: string; input: unknown }>,
): LanguageModelV3GenerateResult {
  return {
    content: calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

const finalAnswer: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'Done.' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
};

describe('toAiSdkTools (Vercel AI SDK, generateText with a mock model)', () => {
  it('case C1 (through the AI SDK): a write by tool call is checkpointed; a guard refusal reaches the model as error-text; rewind removes the file', async () => {
    const { session, workspace } = await setup();
    await writeFiles(workspace, { 'a.txt': 'keep me\n' });
    const seen: ToolContext[] = [];
    const probe: SafeturnTool<{ note: string }, { ok: true; output: string }> = {
      description: 'Records the context it was called with.',
      inputSchema: z.object({ note: z.string() }),
      async execute(input, context) {
        seen.push(context);
        return { ok: true, output: `noted ${input.note}` };
      },
    };
    const tools = toAiSdkTools({ tools: { ...createSessionTools(session), probe }, session });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls([
          { id: 'call-1', name: 'write', input: { path: 'Foo.md', content: '# Foo\n' } },
          { id: 'call-2', name: 'write', input: { path: 'a.txt', content: 'clobbered\n' } },
          { id: 'call-3', name: 'probe', input: { note: 'hi' } },
        ]),
        finalAnswer,
      ],
    });
    const abort = new AbortController();

    await session.beginTurn({ label: 'Write Foo.md' });
    const result = await generateText({
      model,
      tools,
      prompt: 'Write Foo.md',
      stopWhen: stepCountIs(5),
      abortSignal: abort.signal,
    });
    await session.endTurn();

    expect(result.text).toBe('Done.');
    expect(await readFile(path.join(workspace, 'Foo.md'), 'utf8')).toBe('# Foo\n');
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('keep me\n');
    const [first] = result.steps;
    expect(first?.toolResults.map((toolResult) => [toolResult.toolCallId, toolResult.output])).toEqual([
      [
        'call-1',
        { ok: true, output: 'Created Foo.md (6 bytes).', data: { path: 'Foo.md', bytes: 6, created: true } },
      ],
      [
        'call-2',
        expect.objectContaining({ ok: false, error: expect.objectContaining({ code: 'GUARD_NEVER_READ' }) }),
      ],
      ['call-3', { ok: true, output: 'noted hi' }],
    ]);

    // What the model read back in the second request: the text, and the refusal as error-text.
    const secondPrompt = model.doGenerateCalls[1]?.prompt ?? [];
    const toolMessage = secondPrompt.find((message) => message.role === 'tool');
    const outputs = (toolMessage?.content ?? []).map((part) =>
      part.type === 'tool-result' ? [part.toolCallId, part.output] : [],
    );
    expect(outputs[0]).toEqual(['call-1', { type: 'text', value: 'Created Foo.md (6 bytes).' }]);
    expect(outputs[1]?.[0]).toBe('call-2');
    expect(outputs[1]?.[1]).toMatchObject({
      type: 'error-text',
      value: expect.stringMatching(/^GUARD_NEVER_READ: /),
    });

    // toolCallId and abortSignal reach the tool's context; root is the session's.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.root).toBe(workspace);
    expect(seen[0]?.toolCallId).toBe('call-3');
    expect(seen[0]?.abortSignal).toBeInstanceOf(AbortSignal);

    expect(session.rollbackPoints().map((point) => point.files)).toEqual([['Foo.md']]);
    const rewound = await session.rewind(1);
    expect(rewound.deleted).toEqual(['Foo.md']);
    expect(await exists(workspace, 'Foo.md')).toBe(false);
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('keep me\n');
  });

  it('takes a root getter instead of a session', async () => {
    const { session, workspace } = await setup();
    const roots: string[] = [];
    const probe: SafeturnTool<Record<string, never>, string> = {
      description: 'Returns its root.',
      inputSchema: z.object({}),
      async execute(_input, context) {
        roots.push(context.root);
        return context.root;
      },
    };
    const tools = toAiSdkTools({ tools: { probe }, root: () => session.root });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCalls([{ id: 'c', name: 'probe', input: {} }]), finalAnswer],
    });
    await generateText({ model, tools, prompt: 'x', stopWhen: stepCountIs(3) });
    expect(roots).toEqual([workspace]);
    const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === 'tool');
    expect(toolMessage?.content[0]).toMatchObject({ output: { type: 'text', value: workspace } });
  });
});
