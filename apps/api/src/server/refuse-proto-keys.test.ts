/**
 * Issue 27: `__proto__` keys outside the flow document (run input, pins, decisions…) were dropped
 * silently by the input schemas. Against the real HTTP server (its JSON parsing keeps the key as
 * an own property), every procedure refuses them with 400 naming the key's path.
 */
import { describe, expect, it } from 'vitest';
import { protoKeyProblem } from './refuse-proto-keys.ts';
import { useHttpServer } from './test-support.ts';

const server = useHttpServer();
const { post } = server;

describe('"__proto__" keys in a request', () => {
  it('are refused with 400 naming the path, wherever they are in the input', async () => {
    const doc = '{"irVersion":1,"id":"echo","name":"echo","steps":[{"id":"out","type":"transform","value":"=input"}]}';
    expect((await post('flows.create', `{"doc":${doc}}`)).status).toBe(200);
    const start = await post('runs.start', '{"flowId":"echo","input":{"ticket":{"__proto__":{"admin":true}}}}');
    expect(start.status).toBe(400);
    expect(start.body.error?.message).toBe('input.ticket.__proto__: "__proto__" keys are not allowed');

    const replay = await post('runs.replay', '{"runId":"run_x","pins":{"out":{"__proto__":1}}}');
    expect(replay.status).toBe(400);
    expect(replay.body.error?.message).toBe('pins.out.__proto__: "__proto__" keys are not allowed');

    const query = await fetch(`${server.url}/trpc/runs.get?input=${encodeURIComponent('{"__proto__":{"runId":"x"}}')}`);
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: { message: string } }).error.message).toBe(
      '__proto__: "__proto__" keys are not allowed',
    );
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('the same input without the key is accepted', async () => {
    const start = await post('runs.start', '{"flowId":"echo","input":{"ticket":{"proto":{"admin":true}}}}');
    expect(start.status).toBe(200);
  });

  it('are found deep down without recursion', () => {
    let deep: unknown = JSON.parse('{"__proto__":1}');
    for (let level = 0; level < 3_000; level++) deep = [deep];
    expect(protoKeyProblem(deep)).toMatch(/^\[0\]\[0\].*more levels.*__proto__: "__proto__" keys are not allowed$/);
    expect(protoKeyProblem({ a: [1, { b: 'x' }] })).toBeUndefined();
  });
});
