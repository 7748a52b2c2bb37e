/**
 * Hand-off, on every external engine, through the run service: an agent whose first model turn
 * runs on the in-process runner and which, at its first tool call, continues on the backend
 * under test. The tool is an http flow tool POSTing to a counting server on loopback, so its
 * executions are counted wherever they run. The handed-off run must give the output a run that
 * stayed in-process gives; the engine's own history must show no call for the model turn done
 * before the hand-off; the tool must run exactly once; and the run's log must hold one
 * `run.started`, one `run.handed-off` and one `run.completed` — one run, one log.
 */
import { createServer, type Server } from 'node:http';
import type { Flow, RunEvent } from '@weft/engine';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceAdapter } from './adapter.ts';

export const HANDOFF_FLOW = {
  irVersion: 1,
  id: 'handoff-agent',
  name: 'An agent that hands off at its first tool call',
  version: 1,
  input: { type: 'object', properties: { base: { type: 'string' }, key: { type: 'string' } } },
  steps: [
    {
      id: 'agent',
      type: 'llm',
      model: 'mock:echo',
      prompt: 'Count once, then say what you got.',
      tools: ['hit'],
      maxSteps: 4,
    },
  ],
  tools: {
    hit: {
      description: 'counts a hit',
      parameters: { type: 'object', properties: {} },
      http: { method: 'POST', url: '{{ input.base }}/hit/{{ input.key }}' },
    },
  },
  // The tool's answer, not its whole response: headers (a date) differ between two runs.
  output: { text: '=steps.agent.output.text', tool: '=steps.agent.output.toolCalls[0].result.body' },
} as unknown as Flow;

/** Turn 1 calls the tool (streaming its text first: time for the first tokens in-process), turn 2 answers. */
const FIXTURES = {
  agent: [{ text: 'Counting now.', toolCalls: [{ tool: 'hit', args: {} }], streamMs: 50 }, { text: 'Counted once.' }],
};

/** Decided in-process before the hand-off, then asked again on the engine after it. */
export const HANDOFF_APPROVALS_FLOW = {
  ...HANDOFF_FLOW,
  id: 'handoff-approvals',
  name: 'Approvals on both sides of a hand-off',
  steps: [
    { id: 'before', type: 'approval', prompt: 'Start?' },
    ...(HANDOFF_FLOW.steps as unknown[]),
    { id: 'after', type: 'approval', prompt: 'Publish?' },
  ],
  output: {
    text: '=steps.agent.output.text',
    before: '=steps.before.output.approved',
    after: '=steps.after.output.approved',
  },
} as unknown as Flow;

/** A sleep that ends in-process before the hand-off; its wake-up time is part of the output. */
export const HANDOFF_SLEEP_FLOW = {
  ...HANDOFF_FLOW,
  id: 'handoff-sleep',
  name: 'A sleep before a hand-off',
  steps: [{ id: 'nap', type: 'sleep', duration: '20ms' }, ...(HANDOFF_FLOW.steps as unknown[])],
  output: { text: '=steps.agent.output.text', nap: '=steps.nap.output.until' },
} as unknown as Flow;

interface Counter {
  base: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Answers every POST with how often its path was hit: the same answer for each run's first hit. */
async function startCounter(): Promise<Counter> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = (req.url ?? '').replace(/^\/hit\//, '');
      const count = (hits.get(key) ?? 0) + 1;
      hits.set(key, count);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hits: count }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    base: `http://127.0.0.1:${address.port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ofType = (events: readonly RunEvent[], type: RunEvent['type']) => events.filter((event) => event.type === type);

/** Waits for the run to ask for approval at `stepId`. */
async function requested(backend: ConformanceAdapter, runId: string, stepId: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const events = await backend.events(runId);
    if (events.some((event) => event.type === 'approval.requested' && event.stepId === stepId)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${backend.name}: no approval.requested for ${stepId} within ${timeoutMs} ms`);
}

/** Registers the hand-off cases, for an external engine's suite (ConformanceOptions.handOff). */
export function defineHandOffCases(adapter: () => ConformanceAdapter | undefined, timeoutMs: number): void {
  let counter: Counter | undefined;
  beforeAll(async () => {
    counter = await startCounter();
  });
  afterAll(async () => {
    await counter?.close();
  });

  it(
    'hand-off at the first tool call: same output as in-process, the model turn not run again, the tool once, one log',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      if (!backend.startInProcess) throw new Error(`${backend.name}: a hand-off suite needs startInProcess`);
      const start = { flow: HANDOFF_FLOW, flows: [HANDOFF_FLOW], fixtures: FIXTURES };

      const { runId: stayed } = await backend.startInProcess({
        ...start,
        input: { base: counter.base, key: 'stayed' },
      });
      const reference = await backend.waitForEnd(stayed);
      expect(reference.status, `${backend.name}: the in-process run (${reference.error?.message ?? ''})`).toBe(
        'completed',
      );

      const { runId } = await backend.startInProcess({
        ...start,
        input: { base: counter.base, key: 'handed' },
        handOffAt: 'first-tool-call',
      });
      const result = await backend.waitForEnd(runId);
      expect(result.status, `${backend.name}: the handed-off run (${result.error?.message ?? ''})`).toBe('completed');
      expect(result.output).toEqual(reference.output);
      expect(counter.hits.get('handed'), `${backend.name}: tool executions`).toBe(1);

      const events = await backend.events(runId);
      expect(ofType(events, 'run.started')).toHaveLength(1);
      expect(ofType(events, 'run.completed')).toHaveLength(1);
      const handedOff = ofType(events, 'run.handed-off');
      expect(handedOff).toHaveLength(1);
      expect(handedOff[0]).toMatchObject({ from: 'inprocess', checkpoint: 'agent/tool#1.0' });
      // Each fact once: the engine's re-emits of what ran in-process were dropped by key.
      expect(ofType(events, 'step.completed').map((event) => (event as { stepId: string }).stepId)).toEqual([
        'agent/llm#1',
        'agent/tool#1.0',
        'agent/llm#2',
        'agent',
      ]);
      if (backend.engineCalls)
        expect(await backend.engineCalls(runId), `${backend.name}: calls the engine scheduled`).toEqual([
          'agent/tool#1.0',
          'agent/llm#2',
        ]);
    },
    timeoutMs * 2,
  );

  it(
    'hand-off after a sleep: the engine does not sleep it again (it answers with the wake-up time recorded in-process)',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      if (!backend.startInProcess) throw new Error(`${backend.name}: a hand-off suite needs startInProcess`);
      const { runId } = await backend.startInProcess({
        flow: HANDOFF_SLEEP_FLOW,
        flows: [HANDOFF_SLEEP_FLOW],
        fixtures: FIXTURES,
        input: { base: counter.base, key: 'sleep' },
        handOffAt: 'first-tool-call',
      });
      const result = await backend.waitForEnd(runId);
      expect(result.status, `${backend.name}: the run (${result.error?.message ?? ''})`).toBe('completed');
      const events = await backend.events(runId);
      expect(ofType(events, 'run.handed-off')).toHaveLength(1);
      const napEnd = ofType(events, 'step.completed').find((event) => (event as { stepId: string }).stepId === 'nap');
      // Slept again, the engine's interpreter would see its own later wake-up time.
      expect(result.output, `${backend.name}: the sleep's wake-up time`).toEqual({
        text: 'Counted once.',
        nap: (napEnd as { output: { until: string } } | undefined)?.output.until,
      });
      expect(counter.hits.get('sleep')).toBe(1);
    },
    timeoutMs * 2,
  );

  it(
    'hand-off with approvals: one decided in-process is given to the engine, one asked after it is decided there',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      if (!backend.startInProcess) throw new Error(`${backend.name}: a hand-off suite needs startInProcess`);
      const { runId } = await backend.startInProcess({
        flow: HANDOFF_APPROVALS_FLOW,
        flows: [HANDOFF_APPROVALS_FLOW],
        fixtures: FIXTURES,
        input: { base: counter.base, key: 'approvals' },
        handOffAt: 'first-tool-call',
      });
      await requested(backend, runId, 'before', timeoutMs);
      // Still in-process: the decision resumes it here, and it hands off at the tool.
      await backend.decide(runId, 'before', { approved: true, by: 'ada' });
      await requested(backend, runId, 'after', timeoutMs);
      // Now the engine's: the decision goes to the run's backend, which the hand-off changed.
      await backend.decide(runId, 'after', { approved: false, by: 'bo' });
      const result = await backend.waitForEnd(runId);
      expect(result.status, `${backend.name}: the run (${result.error?.message ?? ''})`).toBe('completed');
      expect(result.output).toEqual({ text: 'Counted once.', before: true, after: false });
      expect(counter.hits.get('approvals')).toBe(1);
      const events = await backend.events(runId);
      expect(ofType(events, 'run.handed-off')).toHaveLength(1);
      // Each approval asked once, resolved once: the engine took the in-process decision from the seed.
      for (const type of ['approval.requested', 'approval.resolved'] as const)
        expect(
          ofType(events, type).map((event) => (event as { stepId: string }).stepId),
          `${backend.name}: ${type}`,
        ).toEqual(['before', 'after']);
      if (backend.engineCalls) expect(await backend.engineCalls(runId)).toEqual(['agent/tool#1.0', 'agent/llm#2']);
    },
    timeoutMs * 2,
  );
}
