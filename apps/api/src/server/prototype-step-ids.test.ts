/**
 * Every Object.prototype member name the validator accepts as a step id (`toString`, `valueOf`,
 * `hasOwnProperty`, …) as the id of a step with a side effect (an http POST to a loopback
 * server), through everything that looks step ids up: validate → run → replay (preview and plan)
 * → compare → chat stream → timeline → export. The replay plan looked pins up with `in` on a
 * plain object, so such a step was neither reused nor listed among the steps that run again or
 * have side effects: a replay fired its POST again without asking for confirmation.
 * (The web's timeline, canvas nodes and replay dialog: apps/web/src/run-view/prototype-step-ids.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import { exportFlow } from '@weft/codegen';
import { type Flow, timelineOf, validateFlow } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTextSteps, chunksOf } from './chat/chat-stream.ts';
import { type FlowDoc, type TestServer, testServices, waitForStatus } from './test-support.ts';

/** A model turn, the step under test POSTing to the receiver, a model turn reading its result. */
function flowWith(id: string, n: number): FlowDoc {
  return {
    irVersion: 1,
    id: `proto-${n}`,
    name: `Step ${id}`,
    input: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    steps: [
      { id: 'first', type: 'llm', model: 'mock:echo', prompt: 'one' },
      { id, type: 'http', method: 'POST', url: '{{ input.url }}', body: { step: id } },
      { id: 'last', type: 'llm', model: 'mock:echo', prompt: `status {{ steps.${id}.output.status }}` },
    ],
    output: '=steps.last.output.text',
  };
}

/** The names the validator takes as step ids: a flow with each validates. */
const NAMES = Object.getOwnPropertyNames(Object.prototype).filter((name) => validateFlow(flowWith(name, 0)).ok);

/** POSTs the receiver got, per path. */
const received = new Map<string, number>();
let receiver: Server;
let receiverUrl: string;
let server: TestServer;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.set(req.url ?? '', (received.get(req.url ?? '') ?? 0) + 1);
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await testServices({ env: { NODE_ENV: 'test', WEFT_HTTP_ALLOW_PRIVATE: '1' } });
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function finished(runId: string): Promise<void> {
  expect(await waitForStatus(server.services, runId, ['completed', 'failed', 'cancelled'])).toBe('completed');
}

it('has names to test: the validator accepts toString, valueOf and hasOwnProperty', () => {
  expect(NAMES.length).toBeGreaterThan(0);
  expect(NAMES).toEqual(expect.arrayContaining(['toString', 'valueOf', 'hasOwnProperty']));
});

describe.each(NAMES.map((id, n) => [id, n] as const))('a step called %s', (id, n) => {
  const path = `/${n}`;
  const doc = flowWith(id, n);
  const flow = (() => {
    const result = validateFlow(doc);
    if (!result.ok) throw new Error(`${id}: ${JSON.stringify(result.errors)}`);
    return result.flow as Flow;
  })();
  let source: string;

  it('runs: its POST fires once', async () => {
    await server.services.store.flows.save(doc);
    ({ runId: source } = await server.caller().runs.start({ flowId: doc.id, input: { url: `${receiverUrl}${path}` } }));
    await finished(source);
    expect(received.get(path)).toBe(1);
    const { run } = await server.caller().runs.get({ runId: source });
    expect(run.output).toBe('status 201');
  });

  it('replays: from it or before it, it runs again and is a side effect to confirm', async () => {
    const api = server.caller();
    for (const from of ['first', id]) {
      const preview = await api.runs.replayPreview({ runId: source, from });
      expect(preview.rerun).toContain(id);
      expect(preview.reused).not.toContain(id);
      expect(preview.sideEffects).toEqual([{ stepId: id, stepType: 'http' }]);
      const refused = await api.runs.replay({ runId: source, from }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TRPCError);
      expect(refused).toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining(`${id} (http)`) });
    }
    expect(received.get(path)).toBe(1);
    const confirmed = await api.runs.replay({ runId: source, from: id, confirmSideEffects: true });
    await finished(confirmed.runId);
    expect(received.get(path)).toBe(2);
  });

  let replayed: string;
  it('replays: after it, it is reused, not run again, and nothing needs confirming', async () => {
    const api = server.caller();
    const preview = await api.runs.replayPreview({ runId: source, from: 'last' });
    expect(preview.reused).toEqual(['first/llm#1', id]);
    expect(preview.rerun).not.toContain(id);
    expect(preview.sideEffects).toEqual([]);
    const before = received.get(path);
    const replay = await api.runs.replay({ runId: source, from: 'last' });
    expect(replay.reused).toEqual(['first/llm#1', id]);
    await finished(replay.runId);
    replayed = replay.runId;
    expect(received.get(path)).toBe(before);
    // A pin on it is taken as its result, the step after it reads the pinned value.
    const pinned = await api.runs.replay({
      runId: source,
      from: id,
      pins: { [id]: { status: 299, headers: {}, body: null } },
    });
    expect(pinned.pinned).toEqual([id]);
    await finished(pinned.runId);
    expect(received.get(path)).toBe(before);
    expect((await api.runs.get({ runId: pinned.runId })).run.output).toBe('status 299');
  });

  it('compares: the diff of the run and its replay shows it, the same in both', async () => {
    const comparison = await server.caller().runs.compare({ a: source, b: replayed });
    expect(comparison.steps.find((step) => step.stepId === id)).toMatchObject({ stepId: id, kind: 'same' });
    expect(comparison.firstDivergence).toBeNull();
  });

  it('streams to chat as a data-step part that completes', async () => {
    const events = await server.services.store.readEvents(source);
    const parts = chunksOf(source, chatTextSteps(flow), events).filter(
      (chunk) => chunk.type === 'data-step' && chunk.id === id,
    );
    expect(parts.map((chunk) => (chunk as { data: { status: string } }).data.status)).toEqual(['running', 'completed']);
  });

  it('is drawn on the timeline as a completed bar', async () => {
    const bars = timelineOf(await server.services.store.readEvents(source));
    expect(bars.find((bar) => bar.id === id)).toMatchObject({ stepId: id, stepType: 'http', status: 'completed' });
  });

  it('is exported as its own step, read back by the step after it', async () => {
    const code = await exportFlow(flow, 'weft');
    expect(code).toContain(`await step.http('${id}', {`);
    expect(code).toContain(`steps.${id}.output.status`);
  });
});
