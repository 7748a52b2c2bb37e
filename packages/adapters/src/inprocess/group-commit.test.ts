import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import type { JournalEntry, RunStore } from '../store/types.ts';
import { GroupCommitter } from './group-commit.ts';

const entry = (stepId: string): JournalEntry => ({
  stepId,
  kind: 'tool',
  inputHash: 'tool:x',
  status: 'completed',
  output: stepId,
  error: null,
});

describe('GroupCommitter', () => {
  let store: RunStore;
  beforeEach(async () => {
    store = await openStore({ url: ':memory:' });
    await store.createRun({ id: 'r', flowId: 'f', flowVersion: 1, flow: null, input: null, backend: 'inprocess' });
  });
  afterEach(() => store.close());

  it('writes the events before a step and its journal entry in one commit, durable when it resolves', async () => {
    const committer = new GroupCommitter(store, () => {});
    committer.addEvent('r', { type: 'step.started', stepId: 's', stepType: 'tool' });
    await Promise.resolve();
    await committer.addJournal('r', entry('s'));
    expect(committer.commits).toBe(1);
    expect((await store.loadJournal('r')).map((row) => row.output)).toEqual(['s']);
    expect((await store.readEvents('r')).map((event) => event.type)).toEqual(['step.started']);
  });

  it('joins the journal entries of branches that finish together in one commit', async () => {
    const committer = new GroupCommitter(store, () => {});
    // Branches reach their journal write after different numbers of promise hops.
    const branch = async (i: number) => {
      for (let hop = 0; hop < i % 4; hop++) await Promise.resolve();
      await committer.addJournal('r', entry(`b${i}`));
    };
    await Promise.all(Array.from({ length: 64 }, (_, i) => branch(i)));
    expect(committer.commits).toBe(1);
    expect(await store.loadJournal('r')).toHaveLength(64);
  });

  it('writes events with no step waiting on them at the next turn of the event loop', async () => {
    const stored: string[] = [];
    const committer = new GroupCommitter(store, (events) => stored.push(...events.map((event) => event.type)));
    committer.addEvent('r', { type: 'step.started', stepId: 's', stepType: 'tool' });
    expect(stored).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stored).toEqual(['step.started']);
  });

  it('lets the event loop turn during a long chain of quick steps', async () => {
    const committer = new GroupCommitter(store, () => {});
    let timerFired = false;
    setTimeout(() => {
      timerFired = true;
    }, 0);
    // Without yielding, the chain would run all its steps before the timer could fire.
    const limit = 200_000;
    let steps = 0;
    while (!timerFired && steps < limit) await committer.addJournal('r', entry(`s${steps++}`));
    expect(timerFired).toBe(true);
    expect(steps).toBeLessThan(limit);
  });
});
