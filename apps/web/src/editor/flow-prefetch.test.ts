/**
 * The flow an editor address opens, taken from index.html's early request when that request
 * answered with the flow, and asked for again through the tRPC client otherwise (so the editor
 * sees the client's errors, which it knows how to show).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const query = vi.fn();
vi.mock('../trpc.ts', () => ({ trpc: { flows: { get: { query } } } }));

const { prefetchRouteFlow, takeArrivedFlow, takePrefetchedFlow } = await import('./flow-prefetch.ts');

const holder = globalThis as typeof globalThis & { __weftFlow?: { id: string; response: Promise<Response> } };
const RECORD = { doc: { id: 'f1', steps: [] }, version: 3 };

function early(id: string, response: Promise<Response>) {
  holder.__weftFlow = { id, response };
}

afterEach(() => {
  query.mockReset();
  holder.__weftFlow = undefined;
});

describe('the prefetched flow', () => {
  it('is the early request’s answer when it names the flow (no second request)', async () => {
    early('f1', Promise.resolve(Response.json({ result: { data: RECORD } })));
    prefetchRouteFlow('#/flows/f1?view=0,0,1');
    expect(await takePrefetchedFlow('f1')).toEqual(RECORD);
    expect(query).not.toHaveBeenCalled();
    // Taken once: the early request is not used for a later opening either.
    expect(takePrefetchedFlow('f1')).toBeNull();
    expect(holder.__weftFlow).toBeUndefined();
  });

  it('is asked for through the client when the early request failed or answered an error', async () => {
    query.mockResolvedValue({ ...RECORD, version: 4 });
    early('f1', Promise.resolve(Response.json({ error: { message: 'no flow' } }, { status: 404 })));
    prefetchRouteFlow('#/flows/f1');
    expect(await takePrefetchedFlow('f1')).toEqual({ ...RECORD, version: 4 });
    early('f1', Promise.reject(new TypeError('network down')));
    prefetchRouteFlow('#/flows/f1');
    expect(await takePrefetchedFlow('f1')).toEqual({ ...RECORD, version: 4 });
    expect(query).toHaveBeenCalledTimes(2);
    expect(query).toHaveBeenCalledWith({ id: 'f1' });
  });

  it('ignores an early request for another flow, and a run view asks for nothing', async () => {
    query.mockResolvedValue(RECORD);
    early('other', Promise.resolve(Response.json({ result: { data: { ...RECORD, version: 9 } } })));
    prefetchRouteFlow('#/flows/f1');
    expect(await takePrefetchedFlow('f1')).toEqual(RECORD);
    expect(query).toHaveBeenCalledWith({ id: 'f1' });
    prefetchRouteFlow('#/flows/f1/runs/r1');
    expect(takePrefetchedFlow('f1')).toBeNull();
  });

  it('is there to draw at once only once it has arrived, and only once', async () => {
    let answer: (response: Response) => void = () => undefined;
    early('f1', new Promise<Response>((resolve) => (answer = resolve)));
    prefetchRouteFlow('#/flows/f1');
    expect(takeArrivedFlow('f1')).toBeNull();
    answer(Response.json({ result: { data: RECORD } }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(takeArrivedFlow('other')).toBeNull();
    expect(takeArrivedFlow('f1')).toEqual(RECORD);
    expect(takeArrivedFlow('f1')).toBeNull();
    expect(takePrefetchedFlow('f1')).toBeNull();
  });
});
