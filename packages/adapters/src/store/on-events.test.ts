/**
 * `store.onEvents`, the one feed of every event written to the database: a listener hears each
 * commit's stored events (with seq) once they are committed, whoever commits — the runner's
 * group committer, an external engine reporting through reportRunEvents, or another process on
 * the same database (PostgreSQL NOTIFY, SQLite's write-ahead log) — and never an event the
 * store refused as a duplicate. `RunFollower` reads runs through it.
 */
import type { RunEvent } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunFollower } from './follow-run.ts';
import { reportRunEvents } from './report-events.ts';
import { postgresBackend, sqliteBackend, stepEvents } from './test-support.ts';
import type { RunStore } from './types.ts';

describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))(
  '%s store.onEvents',
  (_, backend) => {
    let store: RunStore;
    let other: RunStore;

    beforeAll(async () => {
      await backend.setup();
      store = await backend.open();
      other = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await other?.close();
      await backend.teardown();
    });

    const createRun = async (id: string) => {
      await store.createRun({
        id,
        flowId: 'flow',
        flowVersion: 1,
        flow: { irVersion: 1, id: 'flow', steps: [] },
        input: null,
        backend: 'temporal',
      });
    };

    it('announces what each commit stored, after it is readable, deduplicated and in seq order', async () => {
      const runId = `run-feed-${backend.name}`;
      await createRun(runId);
      const heard: RunEvent[][] = [];
      const readable: number[] = [];
      const stop = store.onEvents((events) => {
        heard.push(events);
        void store.readEvents(runId).then((stored) => readable.push(stored.length));
      });
      await store.commit([{ runId, journal: [], events: stepEvents('a') }]);
      // An external engine reporting (a replay re-emits what is stored: those are not new).
      await reportRunEvents(store, runId, [...stepEvents('a'), ...stepEvents('b')]);
      stop();
      await store.commit([{ runId, journal: [], events: stepEvents('c') }]);

      expect(
        heard.map((events) => events.map((event) => `${event.type}:${'stepId' in event ? event.stepId : ''}`)),
      ).toEqual([
        ['step.started:a', 'step.completed:a'],
        ['step.started:b', 'step.completed:b'],
      ]);
      // Seqs increase (PostgreSQL may leave gaps where a duplicate was refused).
      const seqs = heard.flat().map((event) => event.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readable[0]).toBeGreaterThanOrEqual(2);
    });

    it("hears this process's commits by the time commit resolves", async () => {
      const runId = `run-feed-own-${backend.name}`;
      await createRun(runId);
      const heard: RunEvent[] = [];
      const stop = store.onEvents((events) => heard.push(...events));
      await store.commit([{ runId, journal: [], events: stepEvents('y') }]);
      const atOnce = heard.map((event) => ('stepId' in event ? event.stepId : ''));
      stop();
      expect(atOnce).toEqual(['y', 'y']);
    });

    it('keeps committing when a listener throws', async () => {
      const runId = `run-feed-throw-${backend.name}`;
      await createRun(runId);
      const heard: number[] = [];
      const stopBad = store.onEvents(() => {
        throw new Error('listener broke');
      });
      const stopGood = store.onEvents((events) => heard.push(events.length));
      await expect(store.commit([{ runId, journal: [], events: stepEvents('z') }])).resolves.toHaveLength(2);
      stopBad();
      stopGood();
      expect(heard).toEqual([2]);
    });

    it('a RunFollower wakes on a commit of a followed run, not of another one', async () => {
      const watched = `run-wait-${backend.name}`;
      const unrelated = `run-wait-other-${backend.name}`;
      await createRun(watched);
      await createRun(unrelated);
      const follower = new RunFollower(store, [[watched, 0]]);
      try {
        expect(await follower.next({ timeoutMs: 0 })).toEqual([]);
        let woke: RunEvent[] | undefined;
        const waiting = follower.next({ timeoutMs: 60_000 }).then((events) => {
          woke = events;
        });
        await store.commit([{ runId: unrelated, journal: [], events: stepEvents('u') }]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(woke).toBeUndefined();
        await store.commit([{ runId: watched, journal: [], events: stepEvents('w') }]);
        await waiting;
        expect(woke?.map((event) => [event.runId, event.type])).toEqual([
          [watched, 'step.started'],
          [watched, 'step.completed'],
        ]);
      } finally {
        follower.close();
      }
    });

    it("hears another process's commits through the commit feed, without polling", async () => {
      // `other` is a second store on the same database: what another process would open.
      const runId = `run-cross-process-${backend.name}`;
      await createRun(runId);
      const follower = new RunFollower(store, [[runId, 0]]);
      try {
        await follower.next({ timeoutMs: 0 });
        // Give the feed its LISTEN connection / file watch before the other writer commits.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        const next = follower.next({ timeoutMs: 20_000 });
        await other.commit([{ runId, journal: [], events: stepEvents('x') }]);
        const heard = await next;
        expect(heard?.map((event) => event.type)).toEqual(['step.started', 'step.completed']);
        // Well under the 20 s timeout: woken by the feed, not by giving up.
        expect(Date.now() - started).toBeLessThan(5_000);
      } finally {
        follower.close();
      }
    });
  },
);
