/**
 * EventWriter without Temporal: the writes it asks for (local activities) and what each call's
 * activity carries, for sequential calls, concurrent calls, a failed call and a replayed legacy
 * history; and the order a store deduping by eventKey ends up with.
 */
import { eventKey, type RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { EventWriter } from './event-writer.ts';

const started = (stepId: string): RunEventInput => ({ type: 'step.started', stepId, stepType: 'tool' });
const completed = (stepId: string): RunEventInput => ({ type: 'step.completed', stepId, output: null });
const ids = (events: readonly RunEventInput[] | undefined) =>
  (events ?? []).map((event) => `${event.type.split('.')[1]}:${'stepId' in event ? event.stepId : ''}`);

/** A writer over a log that dedupes by eventKey, as the run store does; every write and carry recorded. */
function harness(legacy = false) {
  const log: RunEventInput[] = [];
  const keys = new Set<string>();
  const store = (events: readonly RunEventInput[]) => {
    for (const event of events) {
      const key = eventKey(event);
      if (key !== null && keys.has(key)) continue;
      if (key !== null) keys.add(key);
      log.push(event);
    }
  };
  const writes: string[][] = [];
  const writer = new EventWriter(
    async (events) => {
      writes.push(ids(events));
      store(events);
    },
    { legacy },
  );
  const carried: string[][] = [];
  /** A call's activity: writes what it carries, then resolves (or rejects) when `done` settles. */
  const call = (done: Promise<void>) =>
    writer.call(async (events) => {
      carried.push(ids(events));
      if (events) store(events);
      await done;
      return null;
    });
  return { writer, writes, carried, log, call };
}

describe('EventWriter', () => {
  it('sequential calls carry the events before them: no write until the end', async () => {
    const { writer, writes, carried, log, call } = harness();
    writer.push(started('a'));
    await call(Promise.resolve());
    writer.push(completed('a'));
    writer.push(started('b'));
    await call(Promise.resolve());
    writer.push(completed('b'));
    expect(writes).toEqual([]);
    expect(carried).toEqual([['started:a'], ['completed:a', 'started:b']]);
    expect(ids(await writer.rest())).toEqual(['completed:b']);
    expect(ids(log)).toEqual(['started:a', 'completed:a', 'started:b']);
  });

  it('a second concurrent call writes, first, everything the first one carries; later ones join that write', async () => {
    const { writer, writes, carried, log, call } = harness();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    writer.push(started('fan'));
    writer.push(started('b0'));
    const first = call(done);
    const rest = ['b1', 'b2', 'b3'].map((id) => {
      writer.push(started(id));
      return call(done);
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    finish();
    await Promise.all([first, ...rest]);
    expect(carried).toEqual([['started:fan', 'started:b0'], [], [], []]);
    expect(writes).toEqual([['started:fan', 'started:b0', 'started:b1', 'started:b2', 'started:b3']]);
    expect(ids(log)).toEqual(['started:fan', 'started:b0', 'started:b1', 'started:b2', 'started:b3']);
  });

  it('a failed call hands back what it carried: the next write has it, before what came after', async () => {
    const { writer, writes, call } = harness();
    writer.push(started('a'));
    const lost = writer.call(() => Promise.reject(new Error('never ran')));
    await expect(lost).rejects.toThrow('never ran');
    writer.push({ type: 'step.failed', stepId: 'a', error: { name: 'Error', message: 'never ran' } });
    await writer.flush();
    expect(writes).toEqual([['started:a', 'failed:a']]);
    writer.push(started('b'));
    await call(Promise.resolve());
    expect(writes).toHaveLength(1);
  });

  it('a wait flushes in one write; flushes asked for while it is queued join it', async () => {
    const { writer, writes } = harness();
    writer.push(started('a'));
    const one = writer.flush();
    writer.push(started('b'));
    const two = writer.flush();
    expect(two).toBe(one);
    await two;
    expect(writes).toEqual([['started:a', 'started:b']]);
    expect(await writer.rest()).toEqual([]);
  });

  it('a large output is written by a local activity, not carried into the next activity (the history would hold it twice)', async () => {
    const { writer, writes, carried, log, call } = harness();
    writer.push(started('a'));
    await call(Promise.resolve());
    writer.push({ type: 'step.completed', stepId: 'a', output: 'x'.repeat(100_000) });
    writer.push(started('b'));
    await call(Promise.resolve());
    expect(carried).toEqual([['started:a'], []]);
    expect(writes).toEqual([['completed:a', 'started:b']]);
    expect(ids(log)).toEqual(['started:a', 'completed:a', 'started:b']);
  });

  it('a legacy history writes before every call and once per flush, in a row, as it was recorded', async () => {
    const { writer, writes, carried, call } = harness(true);
    writer.push(started('a'));
    await call(Promise.resolve());
    writer.push(completed('a'));
    const one = writer.flush();
    writer.push(started('b'));
    const two = writer.flush();
    await two;
    expect(two).not.toBe(one);
    expect(carried).toEqual([[]]);
    expect(writes).toEqual([['started:a'], ['completed:a'], ['started:b']]);
  });
});
