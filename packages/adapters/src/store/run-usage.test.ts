/**
 * What the store keeps on each run for lists, over both dialects: model-turn tokens per model
 * and reason to be free, counted at commit exactly once; when the run ended; and events read a
 * page at a time.
 */
import type { RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend, stepEvents, storeHarness } from './test-support.ts';
import { freeReason, isFixtureTurn } from './usage.ts';

function llmStarted(stepId: string, model: string): RunEventInput {
  return { type: 'step.started', stepId, stepType: 'llm', input: { model, messages: [], tools: [] } };
}

function turn(llm: string, n: number, input: number, output: number, reused = false): RunEventInput[] {
  const stepId = `${llm}/llm#${n}`;
  return [
    { type: 'step.started', stepId, stepType: 'model-turn', parentId: llm },
    {
      type: 'step.completed',
      stepId,
      output: { text: `turn ${n}` },
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
      ...(reused ? { reused: true as const } : {}),
    },
  ];
}

describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s run usage', (_, backend) => {
  const { store, open, created } = storeHarness(backend);
  const commit = (runId: string, events: RunEventInput[]) => store.commit([{ runId, journal: [], events }]);

  it('counts each model turn once, under the model its llm step named, across commits and connections', async () => {
    const runId = await created();
    await commit(runId, [llmStarted('agent', 'openai:gpt-4o-mini'), ...turn('agent', 1, 100, 10)]);
    await commit(runId, turn('agent', 2, 200, 20));
    // A replay re-emits a turn's events: already held, so not counted again.
    await commit(runId, turn('agent', 2, 200, 20));
    // Another connection (another process) that never saw the llm step start.
    const other = await open();
    await other.commit([{ runId, journal: [], events: turn('agent', 3, 300, 30) }]);
    await commit(runId, [llmStarted('echo', 'mock:echo'), ...turn('echo', 1, 5, 5)]);
    await commit(runId, [...turn('agent', 4, 1000, 100, true), ...turn('orphan', 1, 7, 3)]);

    expect(await store.runUsage(runId)).toEqual([
      { model: 'mock:echo', free: 'mock', turns: 1, inputTokens: 5, outputTokens: 5 },
      { model: 'openai:gpt-4o-mini', free: null, turns: 3, inputTokens: 600, outputTokens: 60 },
      { model: 'openai:gpt-4o-mini', free: 'reused', turns: 1, inputTokens: 1000, outputTokens: 100 },
      { model: 'unknown', free: null, turns: 1, inputTokens: 7, outputTokens: 3 },
    ]);
    expect((await store.getRun(runId))?.tokens).toEqual({ input: 1612, output: 168 });
    // What the list shows is the same.
    const [listed] = (await store.searchRuns({ flowId: 'flow', limit: 50 })).runs.filter((run) => run.id === runId);
    expect(listed?.tokens).toEqual({ input: 1612, output: 168 });
    expect(listed?.usage).toHaveLength(4);
  });

  it("marks the turns the run's fixtures answered as free, by path or step id, and the rest as paid", async () => {
    const runId = await created({ fixtures: { ask: [{ text: 'a' }, { text: 'b' }], 'each[1]/sum': [{ text: 'c' }] } });
    await commit(runId, [
      llmStarted('ask', 'anthropic:claude-3-5-haiku-latest'),
      ...turn('ask', 1, 1, 1),
      ...turn('ask', 2, 1, 1),
      ...turn('ask', 3, 4, 4), // past the recorded turns: the provider answered
      llmStarted('each[0]/sum', 'openai:gpt-4o'),
      ...turn('each[0]/sum', 1, 10, 10), // no fixture for this path, nor for the id 'sum'
      llmStarted('each[1]/sum', 'openai:gpt-4o'),
      ...turn('each[1]/sum', 1, 20, 20),
    ]);
    expect(await store.runUsage(runId)).toEqual([
      { model: 'anthropic:claude-3-5-haiku-latest', free: null, turns: 1, inputTokens: 4, outputTokens: 4 },
      { model: 'anthropic:claude-3-5-haiku-latest', free: 'fixture', turns: 2, inputTokens: 2, outputTokens: 2 },
      { model: 'openai:gpt-4o', free: null, turns: 1, inputTokens: 10, outputTokens: 10 },
      { model: 'openai:gpt-4o', free: 'fixture', turns: 1, inputTokens: 20, outputTokens: 20 },
    ]);
  });

  it('counts the turns of several runs in one group commit, and forgets them with the run', async () => {
    const [a, b] = [await created(), await created()];
    await store.commit([
      { runId: a, journal: [], events: [llmStarted('x', 'openai:gpt-4o'), ...turn('x', 1, 3, 4)] },
      { runId: b, journal: [], events: [llmStarted('x', 'openai:gpt-4o-mini'), ...turn('x', 1, 5, 6)] },
    ]);
    expect((await store.getRun(a))?.tokens).toEqual({ input: 3, output: 4 });
    expect((await store.getRun(b))?.tokens).toEqual({ input: 5, output: 6 });
    expect(await store.deleteRun(a)).toBe(true);
    expect(await store.runUsage(a)).toEqual([]);
    expect(await store.runUsage(b)).toHaveLength(1);
  });

  it('records when a run ended: the first final status, kept by later writes', async () => {
    const runId = await created();
    expect((await store.getRun(runId))?.endedAt).toBeNull();
    await store.updateRun(runId, { status: 'waiting' });
    expect((await store.getRun(runId))?.endedAt).toBeNull();
    await store.updateRun(runId, { status: 'completed' });
    const ended = (await store.getRun(runId))?.endedAt;
    expect(ended).toBeTypeOf('number');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.updateRun(runId, { status: 'failed', error: { name: 'Error', message: 'late' } });
    expect((await store.getRun(runId))?.endedAt).toBe(ended);
    const refused = await created({ status: 'failed' });
    const record = await store.getRun(refused);
    expect(record?.endedAt).toBe(record?.createdAt);
  });

  it('reads events a page at a time', async () => {
    const runId = await created();
    for (const step of ['a', 'b', 'c', 'd']) await commit(runId, stepEvents(step));
    const all = await store.readEvents(runId);
    expect(all).toHaveLength(8);
    const pages = [];
    for (let after = 0; ; ) {
      const page = await store.readEvents(runId, after, 3);
      if (page.length === 0) break;
      pages.push(page.length);
      after = page.at(-1)!.seq;
    }
    expect(pages).toEqual([3, 3, 2]);
    expect(await store.readEvents(runId, all[4]!.seq, 2)).toEqual(all.slice(5, 7));
    expect(await store.readEvents(runId, 0, 0)).toEqual([]);
  });
});

it('says why a turn is free: mock before reused before fixture, null when paid', () => {
  expect(freeReason('mock:echo', { reused: true, fixture: true })).toBe('mock');
  expect(freeReason('openai:gpt-4o', { reused: true, fixture: true })).toBe('reused');
  expect(freeReason('openai:gpt-4o', { reused: false, fixture: true })).toBe('fixture');
  expect(freeReason('openai:gpt-4o', { reused: false, fixture: false })).toBeNull();
  expect(isFixtureTurn({ ask: [{}] }, 'a/b/ask', 1)).toBe(true);
  expect(isFixtureTurn({ ask: [{}] }, 'a/b/ask', 2)).toBe(false);
  expect(isFixtureTurn({ toString: [{}] } as never, 'valueOf', 1)).toBe(false);
  expect(isFixtureTurn(null, 'ask', 1)).toBe(false);
});
