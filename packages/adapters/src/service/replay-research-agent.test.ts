/**
 * The research-agent example replayed from its third model turn with the second turn's first
 * tool call (`percent_change`) pinned to another value: its model (a registered `LanguageModel`
 * playing the example's recorded turns and counting its calls) is not called for turns 1–2
 * again, the page fetch and the `summarize` sub-flow (a child run) are answered from the source
 * run, and turn 3 sees the pinned result.
 */
import type { Json } from '@weft/engine';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DemoApi, startDemoApi } from '../../conformance/demo-api.ts';
import { example, withApiBase } from '../../conformance/examples.ts';
import { memoryFlowSource } from '../backends/flow-source.ts';
import { createExecutorRegistry } from '../executors/index.ts';
import { inProcessBackend } from '../inprocess/backend.ts';
import { InProcessRunner } from '../inprocess/runner.ts';
import { sqliteFileBackend } from '../inprocess/test-support.ts';
import type { RunStore } from '../store/types.ts';
import { RunService } from './run-service.ts';

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

interface FixtureTurn {
  text?: string;
  object?: Json;
  toolCalls?: { tool: string; args: Json }[];
}

/** One streamed turn from a recorded fixture turn: its tool calls, or its text (an object as JSON text). */
function streamOf(turn: FixtureTurn, turnNumber: number) {
  const text = turn.object !== undefined ? JSON.stringify(turn.object) : turn.text;
  const parts =
    text !== undefined
      ? [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: text },
          { type: 'text-end', id: 't' },
        ]
      : (turn.toolCalls ?? []).map((call, index) => ({
          type: 'tool-call',
          toolCallId: `call-${turnNumber}-${index}`,
          toolName: call.tool,
          input: JSON.stringify(call.args),
        }));
  const finish = text !== undefined ? 'stop' : 'tool-calls';
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.enqueue({ type: 'finish', finishReason: { unified: finish, raw: finish }, usage });
        controller.close();
      },
    }),
  };
}

type Prompt = { role: string; content: string | { type: string; text?: string; output?: { value?: Json } }[] }[];

function toolResults(prompt: Prompt): Json[] {
  const results: Json[] = [];
  for (const message of prompt)
    if (message.role === 'tool' && Array.isArray(message.content))
      for (const part of message.content) if (part.type === 'tool-result') results.push(part.output?.value ?? null);
  return results;
}

/** The example with its model pointed at the counting one (built-in provider names cannot be registered). */
function researchAgent(baseUrl: string) {
  const research = withApiBase(example('research-agent'), baseUrl);
  const flow = JSON.parse(JSON.stringify(research.flow).replaceAll('openai:gpt-4o-mini', 'counting:gpt'));
  return { ...research, flow };
}

let demo: DemoApi;
let store: RunStore;
let service: RunService;
const backend = sqliteFileBackend();
/** Which turn each model call answered, in call order: research#1…3, answer#1. */
const calls: string[] = [];
/** The tool results each call was shown. */
const shown: Json[][] = [];

beforeAll(async () => {
  demo = await startDemoApi();
  const research = researchAgent(demo.baseUrl);
  const turns = research.fixtures as unknown as Record<string, FixtureTurn[]>;
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const messages = prompt as unknown as Prompt;
      const last = messages.at(-1);
      const lastText = Array.isArray(last?.content) ? last.content.map((part) => part.text ?? '').join('') : '';
      const assistantTurns = messages.filter((message) => message.role === 'assistant').length;
      const step = last?.role === 'user' && lastText.includes('Return your answer as JSON') ? 'answer' : 'research';
      const turn = step === 'answer' ? 1 : assistantTurns + 1;
      calls.push(`${step}#${turn}`);
      shown.push(toolResults(messages));
      const recorded = turns[step]?.[turn - 1];
      if (!recorded) throw new Error(`no recorded turn ${step}#${turn}`);
      return streamOf(recorded, turn) as never;
    },
  });
  await backend.setup();
  store = await backend.open();
  const flows = memoryFlowSource([research.flow, example('summarize-text').flow]);
  const runner = new InProcessRunner({
    store,
    flows,
    executors: createExecutorRegistry({
      models: { 'counting:gpt': model },
      http: { allowPrivateNetwork: true },
    }),
  });
  service = new RunService({ store, flows, backends: [inProcessBackend(runner)] });
});

afterAll(async () => {
  await service?.close();
  await backend.teardown();
  await demo?.close();
});

async function ended(runId: string) {
  for (let i = 0; i < 1000; i++) {
    const run = await store.getRun(runId);
    if (run && (run.status === 'completed' || run.status === 'failed')) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not end`);
}

it('replays research-agent from its third turn with the second tool call pinned: turns 1–2 are not called again', async () => {
  const research = researchAgent(demo.baseUrl);
  const { runId: source } = await service.start({ flow: research.flow, input: research.input });
  const original = await ended(source);
  expect(original).toMatchObject({ status: 'completed', output: { computed: 35.7, toolCalls: 3 } });
  expect(calls).toEqual(['research#1', 'research#2', 'research#3', 'answer#1']);
  const sourceChildren = (await store.listRuns({ limit: 100 })).filter((run) => run.parentRunId === source);
  expect(sourceChildren).toHaveLength(1);

  const preview = await service.previewReplay(source, {
    from: 'research/llm#3',
    pins: { 'research/tool#2.0': 99.9 },
  });
  expect(preview).toMatchObject({
    reused: ['research/llm#1', 'research/tool#1.0', 'research/llm#2', 'research/tool#2.1'],
    pinned: ['research/tool#2.0'],
    notReused: [],
    tokensSaved: { input: 200, output: 40 },
    // The counting model is in no price table: named, not counted as free.
    costSaved: { usd: 0, unpriced: ['counting:gpt'] },
  });
  const replay = await service.replay(source, {
    from: 'research/llm#3',
    pins: { 'research/tool#2.0': 99.9 },
    confirmSideEffects: true,
  });
  const replayed = await ended(replay.runId);
  expect(replayed).toMatchObject({ status: 'completed', output: { computed: 99.9, toolCalls: 3 } });
  // Two more model calls — the third research turn and the answer — and the third turn saw the
  // real page and summary from the source run next to the pinned percentage.
  expect(calls).toEqual(['research#1', 'research#2', 'research#3', 'answer#1', 'research#3', 'answer#1']);
  const thirdTurn = shown[4] ?? [];
  expect(thirdTurn).toHaveLength(3);
  expect(thirdTurn[1]).toBe(99.9);
  expect(thirdTurn[2]).toEqual(shown[2]?.[2]);
  // The summarize sub-flow was answered from the source run: no child run for the replay.
  expect((await store.listRuns({ limit: 100 })).filter((run) => run.parentRunId === replay.runId)).toEqual([]);
  // The replay's events mark what was reused (not executed).
  const completed = (await store.readEvents(replay.runId)).flatMap((event) =>
    event.type === 'step.completed' && event.reused ? [event.stepId] : [],
  );
  expect(completed).toEqual(
    expect.arrayContaining(['research/llm#1', 'research/tool#1.0', 'research/llm#2', 'research/tool#2.1']),
  );
  expect(completed).not.toContain('research/llm#3');
});
