/**
 * The run debugger's procedures through createCaller: runs.search (filters, full-text search,
 * cursor pages, duration, tokens and cost per row), runs.eventsPage, runs.stateAt and
 * runs.costs, each input validated with errors that name the field.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';
import type { RunEventInput } from '@weft/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  approvalFlow,
  type FlowDoc,
  greetFlow,
  type TestServer,
  testServices,
  waitForApproval,
  waitForStatus,
} from '../test-support.ts';

let server: TestServer;

/** Two agent turns answered by fixtures (with the usage they recorded), on a priced model. */
const agentFlow: FlowDoc = {
  irVersion: 1,
  id: 'agent',
  name: 'Agent',
  input: { type: 'object', properties: { topic: { type: 'string' } } },
  steps: [
    { id: 'think', type: 'llm', model: 'openai:gpt-4o-mini', prompt: 'About {{ input.topic }}', maxSteps: 1 },
    { id: 'echo', type: 'llm', model: 'mock:echo', prompt: 'say {{ input.topic }}' },
  ],
  output: { answer: '=steps.think.output.text', echoed: '=steps.echo.output.text' },
};
const agentFixtures = {
  think: [{ text: 'pelicans glide', usage: { inputTokens: 1000, outputTokens: 100, totalTokens: 1100 } }],
};

// gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
const mini = (input: number, output: number) => (input * 0.15 + output * 0.6) / 1e6;

beforeAll(async () => {
  server = await testServices();
  for (const doc of [greetFlow, approvalFlow, agentFlow]) await server.services.store.flows.save(doc);
});
afterAll(() => server.close());

/** A run recorded straight into the store, as a backend would report it: turns on paid models. */
async function paidRun(turns: { model: string; input: number; output: number }[]): Promise<string> {
  const store = server.services.store;
  const runId = `run_paid_${Math.random().toString(36).slice(2, 10)}`;
  await store.createRun({
    id: runId,
    flowId: 'paid',
    flowVersion: 1,
    flow: {},
    input: { q: 'invoice' },
    backend: 'inprocess',
  });
  const events: RunEventInput[] = [
    { type: 'run.started', flowId: 'paid', flowVersion: 1, input: {}, backend: 'inprocess' },
  ];
  turns.forEach((turn, i) => {
    const llm = `ask${i}`;
    events.push(
      { type: 'step.started', stepId: llm, stepType: 'llm', input: { model: turn.model } },
      { type: 'step.started', stepId: `${llm}/llm#1`, stepType: 'model-turn', parentId: llm },
      {
        type: 'step.completed',
        stepId: `${llm}/llm#1`,
        output: { text: 'ok' },
        usage: { inputTokens: turn.input, outputTokens: turn.output, totalTokens: turn.input + turn.output },
      },
    );
  });
  events.push({ type: 'run.completed', output: { done: true } });
  await store.commit([{ runId, journal: [], events }]);
  await store.updateRun(runId, { status: 'completed', output: { done: true } });
  return runId;
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    const cause = (error as TRPCError).cause as { issues?: { path: PropertyKey[] }[] } | undefined;
    const paths = cause?.issues?.map((issue) => issue.path.map(String).join('.')) ?? [];
    return { code: (error as TRPCError).code, message: (error as TRPCError).message, paths };
  }
  throw new Error('expected the call to fail');
}

describe('runs.search', () => {
  let ada: string;
  let grace: string;
  let agent: string;
  let paid: string;
  beforeAll(async () => {
    const api = server.caller();
    ada = (await api.runs.start({ flowId: 'greet', input: { name: 'Ada Lovelace' } })).runId;
    await waitForStatus(server.services, ada, ['completed']);
    grace = (await api.runs.start({ flowId: 'greet', input: { name: 'Grace' } })).runId;
    await waitForStatus(server.services, grace, ['completed']);
    agent = (await api.runs.start({ flowId: 'agent', input: { topic: 'birds' }, fixtures: agentFixtures })).runId;
    await waitForStatus(server.services, agent, ['completed']);
    paid = await paidRun([
      { model: 'openai:gpt-4o-mini', input: 2000, output: 500 },
      { model: 'acme:unlisted', input: 10, output: 10 },
    ]);
    // A child run: listed only with rootOnly false.
    await server.services.store.createRun({
      id: 'run_child_of_ada',
      flowId: 'greet',
      flowVersion: 1,
      flow: {},
      input: { name: 'Ada junior' },
      backend: 'inprocess',
      parentRunId: ada,
      parentStepId: 'hello',
    });
  });

  it('lists runs newest first with duration, tokens and cost, and no full input or output', async () => {
    const { runs, nextCursor } = await server.caller().runs.search({});
    expect(runs.map((run) => run.id)).toEqual([paid, agent, grace, ada]);
    expect(nextCursor).toBeNull();
    const byId = new Map(runs.map((run) => [run.id, run]));
    expect(byId.get(ada)).toMatchObject({
      flowId: 'greet',
      flowVersion: 1,
      status: 'completed',
      backend: 'inprocess',
      inputPreview: '{"name":"Ada Lovelace"}',
      outputPreview: '{"greeting":"Ada Lovelace"}',
      error: null,
      hasFixtures: false,
      tokens: { input: 0, output: 0 },
      costUsd: 0,
      unpricedModels: [],
    });
    expect(byId.get(ada)?.durationMs).toBeGreaterThanOrEqual(0);
    expect(byId.get(ada)).not.toHaveProperty('input');
    expect(byId.get(ada)).not.toHaveProperty('output');
    // Fixture turns cost nothing; the mock turn neither; their tokens still count.
    const agentRow = byId.get(agent);
    expect(agentRow).toMatchObject({ hasFixtures: true, costUsd: 0, unpricedModels: [] });
    expect(agentRow?.tokens?.input).toBeGreaterThan(1000);
    expect(byId.get(paid)).toMatchObject({
      tokens: { input: 2010, output: 510 },
      costUsd: expect.closeTo(mini(2000, 500), 12),
      unpricedModels: ['acme:unlisted'],
    });
  });

  it('filters and searches in the database, and includes child runs when asked', async () => {
    const api = server.caller();
    const ids = async (input: Parameters<typeof api.runs.search>[0]) =>
      (await api.runs.search(input)).runs.map((run) => run.id);
    expect(await ids({ text: 'lovelace' })).toEqual([ada]); // input and output
    expect(await ids({ text: 'pelicans' })).toEqual([agent]); // a fixture's answer, in the output
    expect(await ids({ text: 'ada', rootOnly: false })).toEqual(['run_child_of_ada', ada]);
    expect(await ids({ flowId: 'greet', status: ['completed'] })).toEqual([grace, ada]);
    expect(await ids({ flowId: 'greet', flowVersion: 2 })).toEqual([]);
    expect(await ids({ backend: ['temporal'] })).toEqual([]);
    const adaRun = await server.services.store.getRun(ada);
    expect(await ids({ flowId: 'greet', until: (adaRun?.createdAt ?? 0) + 1 })).toEqual([ada]);
  });

  it('pages with a cursor until nextCursor is null', async () => {
    const api = server.caller();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof api.runs.search>> = await api.runs.search({
        limit: 1,
        cursor,
        rootOnly: false,
      });
      seen.push(...page.runs.map((run) => run.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(5);
    expect(seen).toEqual((await api.runs.search({ rootOnly: false })).runs.map((run) => run.id));
  });

  it('refuses bad input, naming the field', async () => {
    const api = server.caller();
    expect(await failure(api.runs.search({ text: 'x'.repeat(201) }))).toMatchObject({
      code: 'BAD_REQUEST',
      paths: ['text'],
    });
    expect(await failure(api.runs.search({ limit: 0 }))).toMatchObject({ code: 'BAD_REQUEST', paths: ['limit'] });
    expect(await failure(api.runs.search({ limit: 201 }))).toMatchObject({ paths: ['limit'] });
    expect(await failure(api.runs.search({ status: ['sleeping' as never] }))).toMatchObject({ paths: ['status.0'] });
    expect(await failure(api.runs.search({ since: 10, until: 10 }))).toMatchObject({ paths: ['until'] });
    expect(await failure(api.runs.search({ cursor: 'forged' }))).toMatchObject({
      code: 'BAD_REQUEST',
      paths: ['cursor'],
    });
  });

  describe('with WEFT_PRICES', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-prices-'));
    afterEach(() => {
      delete process.env.WEFT_PRICES;
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('prices with the overrides; a bad file leaves search, costs, compare and replay to the tables', async () => {
      const file = join(dir, 'prices.json');
      writeFileSync(file, JSON.stringify({ 'acme:unlisted': { inputPerMillion: 1_000_000, outputPerMillion: 0 } }));
      process.env.WEFT_PRICES = file;
      const api = server.caller();
      const [row] = (await api.runs.search({ flowId: 'paid' })).runs;
      expect(row).toMatchObject({ costUsd: expect.closeTo(10 + mini(2000, 500), 9), unpricedModels: [] });
      // Reported once on stderr (service/price-overrides.test.ts checks the report itself).
      writeFileSync(file, JSON.stringify({ 'acme:unlisted': { inputPerMillion: 'cheap', outputPerMillion: 0 } }));
      const [tableRow] = (await api.runs.search({ flowId: 'paid' })).runs;
      expect(tableRow).toMatchObject({
        costUsd: expect.closeTo(mini(2000, 500), 12),
        unpricedModels: ['acme:unlisted'],
      });
      const costs = await api.runs.costs({ runId: paid });
      expect(costs.total).toMatchObject({ usd: expect.closeTo(mini(2000, 500), 12), unpriced: ['acme:unlisted'] });
      expect((await api.runs.compare({ a: paid, b: paid })).cost.deltaUsd).toBe(0);
      expect(await api.runs.replayPreview({ runId: agent, from: 'echo' })).toMatchObject({ reused: ['think/llm#1'] });

      rmSync(file);
      mkdirSync(file);
      expect((await api.runs.costs({ runId: paid })).total.usd).toBeCloseTo(mini(2000, 500), 12);
      expect(await api.runs.replayPreview({ runId: agent, from: 'echo' })).toMatchObject({ reused: ['think/llm#1'] });
    });
  });
});

describe('runs.eventsPage and runs.stateAt', () => {
  it('pages through the stored events, and folds the state after any of them', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'crate' } });
    await waitForApproval(server.services, runId, 'gate');
    const all = await server.services.store.readEvents(runId);
    const paged = [];
    let after = 0;
    for (;;) {
      const page = await api.runs.eventsPage({ runId, after, limit: 2 });
      paged.push(...page.events);
      if (page.nextAfter === null) break;
      expect(page.events).toHaveLength(2);
      after = page.nextAfter;
    }
    expect(paged).toEqual(all);
    expect((await api.runs.eventsPage({ runId })).events).toEqual(all);

    const requested = all.find((event) => event.type === 'approval.requested')!;
    const atRequest = await api.runs.stateAt({ runId, seq: requested.seq });
    expect(atRequest.status).toBe('waiting');
    expect(atRequest.seq).toBe(requested.seq);
    expect(atRequest.steps.gate?.status).toBe('waiting');
    const before = await api.runs.stateAt({ runId, seq: requested.seq - 1 });
    expect(before.steps.gate?.status).toBe('running');
    expect((await api.runs.stateAt({ runId, seq: 0 })).order).toEqual([]);
    expect(await api.runs.stateAt({ runId, seq: all.at(-1)!.seq })).toEqual((await api.runs.get({ runId })).state);
  });

  it('refuses an unknown run, a seq past the end and out-of-range pages, naming the field', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'greet', input: { name: 'x' } });
    await waitForStatus(server.services, runId, ['completed']);
    const last = (await server.services.store.readEvents(runId)).at(-1)!.seq;
    expect(await failure(api.runs.stateAt({ runId, seq: last + 1 }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: `seq: run '${runId}' has events up to ${last}`,
      paths: ['seq'],
    });
    expect(await failure(api.runs.stateAt({ runId, seq: -1 }))).toMatchObject({ paths: ['seq'] });
    expect(await failure(api.runs.eventsPage({ runId, limit: 5001 }))).toMatchObject({ paths: ['limit'] });
    expect(await failure(api.runs.eventsPage({ runId, after: 1.5 }))).toMatchObject({ paths: ['after'] });
    expect(await failure(api.runs.eventsPage({ runId: 'run_nope' }))).toMatchObject({
      code: 'NOT_FOUND',
      message: "runId: unknown run 'run_nope'",
    });
    expect(await failure(api.runs.stateAt({ runId: 'run_nope', seq: 1 }))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('runs.costs', () => {
  it('prices each turn and each llm step, and says why free turns are free', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'agent', input: { topic: 'owls' }, fixtures: agentFixtures });
    await waitForStatus(server.services, runId, ['completed']);
    const costs = await api.runs.costs({ runId });
    expect(costs.steps['think/llm#1']).toEqual({
      model: 'openai:gpt-4o-mini',
      usd: 0,
      inputTokens: 1000,
      outputTokens: 100,
      unpriced: [],
      free: 'fixture',
    });
    expect(costs.steps.think).toMatchObject({ usd: 0, free: 'fixture', inputTokens: 1000 });
    expect(costs.steps['echo/llm#1']).toMatchObject({ model: 'mock:echo', usd: 0, free: 'mock' });
    expect(costs.total).toMatchObject({ usd: 0, unpriced: [] });
    expect(costs.total.inputTokens).toBe(1000 + (costs.steps.echo?.inputTokens ?? Number.NaN));

    const paid = await paidRun([{ model: 'openai:gpt-4o-mini', input: 4000, output: 1000 }]);
    const paidCosts = await api.runs.costs({ runId: paid });
    expect(paidCosts.total).toEqual({
      usd: expect.closeTo(mini(4000, 1000), 12),
      unpriced: [],
      inputTokens: 4000,
      outputTokens: 1000,
    });
    expect(paidCosts.steps.ask0).toMatchObject({ usd: expect.closeTo(mini(4000, 1000), 12), free: null });
    expect(await failure(api.runs.costs({ runId: 'run_nope' }))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
