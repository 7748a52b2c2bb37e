/**
 * Replay from a checkpoint, on every backend, through the run service: a 10-step run whose
 * every step is a side effect (a POST to a counting server on loopback) is replayed from step
 * 6. Steps 1–5 must not run again (answered from the source run's journal, no activity, no
 * step.run), 6–10 run once more; pinned, step 6 does not run at all and step 7 receives the
 * pinned value. Then the same run replayed onto a newer version of its flow with a step inserted
 * in the middle: exactly what the preview said is reused, and everything else runs.
 */
import { createServer, type Server } from 'node:http';
import type { Flow, Json } from '@weft/engine';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceAdapter } from './adapter.ts';

const STEPS = 10;

/** Each step POSTs what the step before it answered: a pin upstream shows in the next request. */
const post = (id: string, previous: string | null) => ({
  id,
  type: 'http',
  method: 'POST',
  url: `{{ input.base }}/hit/${id}`,
  body: { previous: previous === null ? null : `=steps.${previous}.output.body` },
});

export const REPLAY_FLOW = {
  irVersion: 1,
  id: 'replay-side-effects',
  name: 'Ten side effects',
  version: 1,
  steps: Array.from({ length: STEPS }, (_, index) => post(`s${index + 1}`, index === 0 ? null : `s${index}`)),
  output: `=steps.s${STEPS}.output.body`,
} as unknown as Flow;

/** A parent that spawns a child of two side effects between two of its own. */
const CHILD_FLOW = {
  irVersion: 1,
  id: 'replay-child',
  name: 'Two side effects',
  version: 1,
  input: { type: 'object', properties: { base: { type: 'string' } } },
  steps: [post('c1', null), post('c2', 'c1')],
  output: '=steps.c2.output.body',
} as unknown as Flow;
const PARENT_FLOW = {
  irVersion: 1,
  id: 'replay-parent',
  name: 'A child between two side effects',
  version: 1,
  steps: [
    post('p1', null),
    { id: 'kid', type: 'spawn', flow: 'replay-child', input: { base: '=input.base' } },
    post('p2', 'p1'),
  ],
  output: { child: '=steps.kid.output', last: '=steps.p2.output.body' },
} as unknown as Flow;

/** Version 2: a step `x` inserted between s5 and s6 (s6 still reads s5). */
const INSERTED = {
  ...REPLAY_FLOW,
  version: 2,
  steps: [...REPLAY_FLOW.steps.slice(0, 5), post('x', 's5'), ...REPLAY_FLOW.steps.slice(5)],
} as unknown as Flow;

interface Counter {
  base: string;
  hits: Map<string, number>;
  bodies: Map<string, Json>;
  close(): Promise<void>;
}

async function startCounter(): Promise<Counter> {
  const hits = new Map<string, number>();
  const bodies = new Map<string, Json>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', () => {
      const step = (req.url ?? '').replace(/^\/hit\//, '');
      const count = (hits.get(step) ?? 0) + 1;
      hits.set(step, count);
      bodies.set(step, text ? (JSON.parse(text) as Json) : null);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ step, count }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    base: `http://127.0.0.1:${address.port}`,
    hits,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every flow (and version) the replay cases run, for adapters that translate flows ahead of time. */
export const REPLAY_FLOWS: readonly Flow[] = [REPLAY_FLOW, INSERTED, CHILD_FLOW, PARENT_FLOW];

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => `s${from + index}`);
const counts = (counter: Counter, steps = ids(1, STEPS)) => steps.map((id) => counter.hits.get(id) ?? 0);
const reusedIn = (events: readonly { type: string; stepId?: string; reused?: boolean }[]) =>
  events.flatMap((event) => (event.type === 'step.completed' && event.reused && event.stepId ? [event.stepId] : []));

/** Registers the replay cases; `adapter()` is the suite's adapter once it has started. */
export function defineReplayCases(adapter: () => ConformanceAdapter | undefined, timeoutMs: number): void {
  let counter: Counter | undefined;
  beforeAll(async () => {
    counter = await startCounter();
  });
  afterAll(async () => {
    await counter?.close();
  });

  it(
    'replay from step 6 of ten side effects: 1–5 are not run again, 6–10 once more; pinned, 6 is not run and 7 gets the pin',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      const { runId: source } = await backend.start({
        flow: REPLAY_FLOW,
        flows: [REPLAY_FLOW],
        input: { base: counter.base },
        fixtures: {},
      });
      expect((await backend.waitForEnd(source)).status, `${backend.name}: the source run`).toBe('completed');
      expect(counts(counter)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);

      // Steps with side effects run again: the replay refuses to start until that is confirmed.
      await expect(backend.replay(source, { from: 's6' })).rejects.toThrow(/^confirmSideEffects: .*s6 \(http\)/);
      const replay = await backend.replay(source, { from: 's6', confirmSideEffects: true });
      expect(replay.reused).toEqual(ids(1, 5));
      const replayed = await backend.waitForEnd(replay.runId);
      expect(replayed.status, `${backend.name}: the replay (${replayed.error?.message ?? ''})`).toBe('completed');
      expect(counts(counter), `${backend.name}: hits per step after the replay`).toEqual([
        1, 1, 1, 1, 1, 2, 2, 2, 2, 2,
      ]);
      expect(replayed.output).toEqual({ step: 's10', count: 2 });
      if (backend.engineCalls)
        expect(await backend.engineCalls(replay.runId), `${backend.name}: calls the engine scheduled`).toEqual(
          ids(6, 10),
        );

      const pin = { step: 's6', count: 99, pinned: true };
      const pinned = await backend.replay(source, {
        from: 's6',
        pins: { s6: { status: 200, headers: {}, body: pin } },
        confirmSideEffects: true,
      });
      expect(pinned).toMatchObject({ reused: ids(1, 5), pinned: ['s6'] });
      expect((await backend.waitForEnd(pinned.runId)).status, `${backend.name}: the pinned replay`).toBe('completed');
      expect(counts(counter), `${backend.name}: hits per step after the pinned replay`).toEqual([
        1, 1, 1, 1, 1, 2, 3, 3, 3, 3,
      ]);
      expect(counter.bodies.get('s7')).toEqual({ previous: pin });
      if (backend.engineCalls) expect(await backend.engineCalls(pinned.runId)).toEqual(ids(7, 10));
      // The source run is not changed by its replays.
      expect((await backend.events(source)).filter((event) => event.type === 'step.completed')).toHaveLength(STEPS);
    },
    timeoutMs * 2,
  );

  it(
    'replay onto the current version after a step was inserted in the middle: reused is exactly what the preview said',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      const { runId: source } = await backend.start({
        flow: REPLAY_FLOW,
        flows: [REPLAY_FLOW],
        input: { base: counter.base },
        fixtures: {},
      });
      expect((await backend.waitForEnd(source)).status).toBe('completed');
      const before = counts(counter, [...ids(1, STEPS), 'x']);

      const replay = await backend.replay(source, {
        from: 's8',
        version: 'current',
        current: [INSERTED],
        confirmSideEffects: true,
      });
      expect(replay.flowVersion).toBe(2);
      expect(replay.reused).toEqual(ids(1, 5));
      expect(replay.notReused).toEqual([
        { checkpoint: 's6', reason: "comes after the added step 'x' in the new version" },
        { checkpoint: 's7', reason: "comes after the added step 'x' in the new version" },
      ]);
      const replayed = await backend.waitForEnd(replay.runId);
      expect(replayed.status, `${backend.name}: the replay (${replayed.error?.message ?? ''})`).toBe('completed');
      // What ran: the inserted step and s6–s10, once each; what the preview reused did not.
      const after = counts(counter, [...ids(1, STEPS), 'x']);
      expect(after.map((count, index) => count - (before[index] ?? 0))).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
      expect(reusedIn(await backend.events(replay.runId))).toEqual(replay.reused);
      if (backend.engineCalls) expect(await backend.engineCalls(replay.runId)).toEqual(['x', ...ids(6, 10)]);
    },
    timeoutMs * 2,
  );

  it(
    'replay from a step inside a child run: the parent runs again from its spawn, the child from that step',
    async () => {
      const backend = adapter();
      if (!backend || !counter) throw new Error('the conformance suite did not start');
      const watched = ['p1', 'c1', 'c2', 'p2'];
      const before = counts(counter, watched);
      const { runId: source } = await backend.start({
        flow: PARENT_FLOW,
        flows: [PARENT_FLOW, CHILD_FLOW],
        input: { base: counter.base },
        fixtures: {},
      });
      expect((await backend.waitForEnd(source)).status).toBe('completed');
      const childOf = async (runId: string) =>
        (await backend.events(runId)).flatMap((event) => (event.type === 'child.started' ? [event.childRunId] : []))[0];
      const sourceChild = await childOf(source);
      if (!sourceChild) throw new Error(`${backend.name}: the source run started no child`);

      const replay = await backend.replay(sourceChild, { from: 'c2', confirmSideEffects: true });
      expect(replay.reused).toEqual(['p1', 'kid>c1']);
      expect(replay.rerun).toEqual(['kid', 'p2', 'kid>c2']);
      expect(replay.sideEffects.map((effect) => effect.stepId)).toEqual(['p2', 'kid>c2']);
      const replayed = await backend.waitForEnd(replay.runId);
      expect(replayed.status, `${backend.name}: the replay (${replayed.error?.message ?? ''})`).toBe('completed');
      const after = counts(counter, watched);
      // p1 and c1 ran once (in the source run); c2 and p2 once more.
      expect(after.map((count, index) => count - (before[index] ?? 0))).toEqual([1, 1, 2, 2]);
      const replayChild = await childOf(replay.runId);
      if (!replayChild) throw new Error(`${backend.name}: the replay started no child`);
      expect(reusedIn(await backend.events(replayChild))).toEqual(['c1']);
      expect(reusedIn(await backend.events(replay.runId))).toEqual(['p1']);
    },
    timeoutMs * 2,
  );
}
