/**
 * `runs.get` and `runs.eventsPage` answer a run's events a page at a time, bounded by bytes
 * (WEFT_MAX_RUN_PAGE_BYTES, or less if asked), and following the pages folds the same state as
 * the whole log at once.
 */
import { applyEvent, type RunEvent, type RunState, runState } from '@weft/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, testServices, waitForStatus } from '../test-support.ts';

let server: TestServer;
let runId: string;
const saved = process.env.WEFT_MAX_RUN_PAGE_BYTES;

beforeAll(async () => {
  server = await testServices();
  // Ten steps of ~2,000 bytes of output each: ~40 kB of log.
  await server.caller().flows.create({
    doc: {
      irVersion: 1,
      id: 'wide',
      name: 'wide',
      steps: Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, type: 'code', source: "return 'x'.repeat(2000);" })),
    },
  });
  ({ runId } = await server.caller().runs.start({ flowId: 'wide' }));
  await waitForStatus(server.services, runId, ['completed']);
});
afterEach(() => {
  if (saved === undefined) delete process.env.WEFT_MAX_RUN_PAGE_BYTES;
  else process.env.WEFT_MAX_RUN_PAGE_BYTES = saved;
});
afterAll(async () => {
  await server?.close();
});

describe('runs.get pages', () => {
  it('answers a small run whole (nextAfter null)', async () => {
    const got = await server.caller().runs.get({ runId });
    expect(got.nextAfter).toBeNull();
    expect(got.state).toEqual(runState(await server.services.store.readEvents(runId)));
  });

  it('folds only the first page when the log is over WEFT_MAX_RUN_PAGE_BYTES, and the rest follows', async () => {
    process.env.WEFT_MAX_RUN_PAGE_BYTES = '5000';
    const api = server.caller();
    const got = await api.runs.get({ runId });
    expect(got.nextAfter).not.toBeNull();
    expect(JSON.stringify(got.state).length).toBeLessThan(10_000);
    const all = await server.services.store.readEvents(runId);
    let state = got.state as RunState;
    let after = got.nextAfter;
    let pages = 1;
    while (after !== null) {
      const page = await api.runs.eventsPage({ runId, after });
      expect(JSON.stringify(page.events).length).toBeLessThan(5000 + 2100);
      for (const event of page.events) state = applyEvent(state, event as RunEvent);
      after = page.nextAfter;
      pages++;
    }
    expect(pages).toBeGreaterThan(4);
    expect(JSON.parse(JSON.stringify(state))).toEqual(JSON.parse(JSON.stringify(runState(all))));
  });

  it('takes a smaller budget from the caller, and always moves on by at least one event', async () => {
    const got = await server.caller().runs.get({ runId, maxBytes: 1 });
    expect(got.state.seq).toBe(1);
    expect(got.nextAfter).toBe(1);
    const page = await server.caller().runs.eventsPage({ runId, after: 1, maxBytes: 1 });
    expect(page.events.map((event) => event.seq)).toEqual([2]);
    expect(page.nextAfter).toBe(2);
  });
});
