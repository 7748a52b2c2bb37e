/**
 * Malformed recorded model turns from outside — a replay's pins, a run's fixtures — are refused
 * before anything is recorded, over real HTTP, with a 400 whose message names the field. Each
 * of these answered 500 (a pin of null, `toolCalls: "x"`) or recorded a run that then failed
 * with a TypeError (garbage `responseMessages`) before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type FlowDoc, useHttpServer, waitForStatus } from '../test-support.ts';

/** One model turn, answered by a fixture (no provider), then a transform reading it. */
const agentFlow: FlowDoc = {
  irVersion: 1,
  id: 'agent-turn',
  name: 'Agent turn',
  steps: [
    { id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'hello' },
    { id: 'shout', type: 'transform', value: '=upper(steps.agent.output.text)' },
  ],
  output: '=steps.shout.output',
};
const TURN = 'agent/llm#1';

const server = useHttpServer();
const { call, query } = server;
let sourceRunId: string;

beforeAll(async () => {
  await server.services.store.flows.save(agentFlow);
  const started = await call('runs.start', { flowId: 'agent-turn', fixtures: { agent: [{ text: 'recorded' }] } });
  expect(started.status).toBe(200);
  sourceRunId = started.body.result.data.runId;
  expect(await waitForStatus(server.services, sourceRunId, ['completed', 'failed'])).toBe('completed');
});

/** runs.replayPreview and runs.replay with this pin: both refused with a 400 whose message is `message`. */
async function expectPinRefused(pin: unknown, message: string | RegExp) {
  const request = { runId: sourceRunId, from: 'agent', pins: { [TURN]: pin } };
  const before = (await server.services.store.listRuns({ limit: 1000 })).length;
  for (const answer of [await query('runs.replayPreview', request), await call('runs.replay', request)]) {
    expect(answer.body.error?.data?.code).toBe('BAD_REQUEST');
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(message);
  }
  // Refused before anything was recorded.
  expect((await server.services.store.listRuns({ limit: 1000 })).length).toBe(before);
}

/** runs.start with these fixtures for the llm step: refused with a 400 naming the field, no run recorded. */
async function expectFixturesRefused(turns: unknown, message: string | RegExp) {
  const before = (await server.services.store.listRuns({ limit: 1000 })).length;
  const answer = await call('runs.start', { flowId: 'agent-turn', fixtures: { agent: turns } });
  expect(answer.body.error?.data?.code).toBe('BAD_REQUEST');
  expect(answer.status).toBe(400);
  expect(answer.body.error.message).toMatch(message);
  expect((await server.services.store.listRuns({ limit: 1000 })).length).toBe(before);
}

const escaped = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

describe('malformed pinned model turns', () => {
  it('refuses a null pin on a model turn, naming the pin', async () => {
    await expectPinRefused(null, escaped(`pins['${TURN}']: expected a model turn`));
  });

  it('refuses toolCalls that are not an array of { tool, args }, naming the field', async () => {
    await expectPinRefused(
      { toolCalls: 'x' },
      escaped(`pins['${TURN}'].toolCalls: expected an array of { tool, args }`),
    );
    await expectPinRefused(
      { toolCalls: [{ args: {} }] },
      escaped(`pins['${TURN}'].toolCalls[0].tool: expected a tool name`),
    );
  });

  it('refuses garbage responseMessages in a pinned turn, naming the field', async () => {
    await expectPinRefused(
      { responseMessages: 5 },
      escaped(`pins['${TURN}'].responseMessages: expected an array of messages`),
    );
    await expectPinRefused(
      {
        text: 'x',
        toolCalls: [],
        responseMessages: ['a', 'b'],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
      escaped(`pins['${TURN}'].responseMessages[0]: expected a message`),
    );
    // A whole turn without the fields the agent loop reads (it failed with a TypeError on usage).
    await expectPinRefused(
      { text: 'x', toolCalls: [], responseMessages: [{ role: 'assistant', content: 'x' }] },
      escaped(`pins['${TURN}'].usage: expected { inputTokens, outputTokens, totalTokens }`),
    );
  });

  it('still takes a well-formed pin: text, a fixture turn, a whole turn', async () => {
    for (const pin of [
      'PINNED',
      { text: 'PINNED' },
      {
        text: 'PINNED',
        toolCalls: [],
        responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'PINNED' }] }],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        finishReason: 'stop',
      },
    ]) {
      const answer = await call('runs.replay', { runId: sourceRunId, from: 'agent', pins: { [TURN]: pin } });
      expect(answer.status).toBe(200);
      const runId = answer.body.result.data.runId as string;
      expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
      expect((await server.services.store.getRun(runId))?.output).toBe('PINNED');
    }
  });
});

describe('malformed fixtures', () => {
  it('refuses a null fixture turn, naming it', async () => {
    await expectFixturesRefused([null], escaped(`fixtures['agent'][0]: expected a turn object`));
  });

  it('refuses toolCalls that are not an array, naming the field', async () => {
    await expectFixturesRefused(
      [{ toolCalls: 'x' }],
      escaped(`fixtures['agent'][0].toolCalls: expected an array of { tool, args }`),
    );
  });

  it('refuses responseMessages in a fixture turn, naming the field', async () => {
    for (const responseMessages of [5, ['a', 'b']])
      await expectFixturesRefused(
        [{ text: 'x' }, { text: 'y', responseMessages }],
        escaped(`fixtures['agent'][1].responseMessages: is not part of a fixture turn`),
      );
  });
});
