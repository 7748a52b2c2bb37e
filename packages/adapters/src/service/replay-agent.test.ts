/**
 * Replaying an agent loop from its third model turn with the second tool call's result pinned:
 * the model (a registered `LanguageModel` that counts its calls) is not called for turns 1–2
 * again, and turn 3 sees the pinned result in its conversation.
 */
import type { Json } from '@weft/engine';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createExecutorRegistry } from '../executors/index.ts';
import { inProcessBackend } from '../inprocess/backend.ts';
import { InProcessRunner } from '../inprocess/runner.ts';
import { flowOf, sqliteFileBackend } from '../inprocess/test-support.ts';
import type { RunStore } from '../store/types.ts';
import { RunService } from './run-service.ts';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One streamed turn: a tool call, or the final text. */
function turn(part: { tool: string; input: Json } | { text: string }) {
  const parts =
    'text' in part
      ? [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: part.text },
          { type: 'text-end', id: 't' },
        ]
      : [
          {
            type: 'tool-call',
            toolCallId: `call-${part.tool}`,
            toolName: part.tool,
            input: JSON.stringify(part.input),
          },
        ];
  const finish = 'text' in part ? 'stop' : 'tool-calls';
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const item of parts) controller.enqueue(item);
        controller.enqueue({ type: 'finish', finishReason: { unified: finish, raw: finish }, usage });
        controller.close();
      },
    }),
  };
}

/** What the conversation so far holds: the tool results the model was shown. */
function toolResults(prompt: unknown): Json[] {
  const results: Json[] = [];
  for (const message of prompt as { role: string; content: { type: string; output?: { value?: Json } }[] }[])
    if (message.role === 'tool')
      for (const part of message.content) if (part.type === 'tool-result') results.push(part.output?.value ?? null);
  return results;
}

/** Turn 1 calls `add`, turn 2 calls `double` on its result, turn 3 answers with what it was told. */
const seen: Json[][] = [];
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const results = toolResults(prompt);
    seen.push(results);
    if (results.length === 0) return turn({ tool: 'add', input: { a: 2, b: 3 } }) as never;
    if (results.length === 1) return turn({ tool: 'double', input: { x: results[0] ?? null } }) as never;
    return turn({ text: `the answer is ${JSON.stringify(results.at(-1))}` }) as never;
  },
});

const agent = flowOf(
  'agent',
  [
    {
      id: 'agent',
      type: 'llm',
      model: 'counting:agent',
      prompt: 'Add 2 and 3, then double it.',
      tools: ['add', 'double'],
      maxSteps: 5,
    },
  ],
  {
    tools: {
      add: {
        description: 'a + b',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        source: 'return args.a + args.b;',
      },
      double: {
        description: 'x * 2',
        parameters: { type: 'object', properties: { x: { type: 'number' } } },
        source: 'return args.x * 2;',
      },
    },
    output: '=steps.agent.output.text',
  },
);

const backend = sqliteFileBackend();
let store: RunStore;
let service: RunService;
beforeAll(async () => {
  await backend.setup();
  store = await backend.open();
  const runner = new InProcessRunner({
    store,
    executors: createExecutorRegistry({ models: { 'counting:agent': model } }),
  });
  service = new RunService({ store, backends: [inProcessBackend(runner)] });
});
afterAll(async () => {
  await service?.close();
  await backend.teardown();
});

async function ended(runId: string) {
  for (let i = 0; i < 500; i++) {
    const run = await store.getRun(runId);
    if (run && (run.status === 'completed' || run.status === 'failed')) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not end`);
}

it('replays an agent from its third turn with the second tool result pinned: turns 1–2 are not called again', async () => {
  const { runId: source } = await service.start({ flow: agent, input: {} });
  expect(await ended(source)).toMatchObject({ status: 'completed', output: 'the answer is 10' });
  expect(model.doStreamCalls).toHaveLength(3);

  const replay = await service.replay(source, { from: 'agent/llm#3', pins: { 'agent/tool#2.0': 42 } });
  expect(replay).toMatchObject({
    reused: ['agent/llm#1', 'agent/tool#1.0', 'agent/llm#2'],
    pinned: ['agent/tool#2.0'],
    sideEffects: [],
  });
  expect(await ended(replay.runId)).toMatchObject({ status: 'completed', output: 'the answer is 42' });
  // One more model call — turn 3 — which saw the first tool's real result and the pinned one.
  expect(model.doStreamCalls).toHaveLength(4);
  expect(seen.at(-1)).toEqual([5, 42]);
});
