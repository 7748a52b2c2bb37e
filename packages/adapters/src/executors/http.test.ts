/**
 * The http executor's requests and responses: bodies in and out, non-2xx answers, the size cap,
 * redirects, unreachable and hanging servers, and requests that cannot work. The private-network
 * guard is in http-private-network.test.ts; credential handling in http-credentials.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NonRetryableError } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { failure, request, useFixtureServer } from './http-test-support.ts';

const served = useFixtureServer();

describe('http executor', () => {
  it('returns text bodies as text, with the response headers', async () => {
    const result = (await request({ url: `${served.base}/text` })) as {
      status: number;
      headers: Record<string, string>;
    };
    expect(result).toMatchObject({ status: 200, body: 'hello' });
    expect(result.headers['x-request-id']).toBe('abc');
  });

  it('hands non-2xx responses to the flow instead of failing', async () => {
    expect(await request({ url: `${served.base}/missing` })).toMatchObject({
      status: 404,
      body: { title: 'not found' },
    });
  });

  it('sends an object body as JSON and a string body as is', async () => {
    const json = await request({ method: 'post', url: `${served.base}/echo`, body: { a: 1 } });
    expect(json).toMatchObject({ status: 201, body: { method: 'POST', type: 'application/json', body: '{"a":1}' } });
    const text = await request({
      method: 'PUT',
      url: `${served.base}/echo`,
      body: 'raw=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text).toMatchObject({ body: { method: 'PUT', type: 'application/x-www-form-urlencoded', body: 'raw=1' } });
  });

  it('caps the response size with a clear error', async () => {
    const error = await failure(
      request({ url: `${served.base}/big` }, { http: { allowPrivateNetwork: true, maxResponseBytes: 1024 } }),
    );
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/response is larger than the 1024 bytes limit/);
  });

  it('follows redirects', async () => {
    expect(await request({ url: `${served.base}/redirect` })).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('fails with a retryable error when the server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(request({ url: `http://127.0.0.1:${port}/` }));
    expect(error).not.toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(`http GET http://127.0.0.1:${port}/ failed: ECONNREFUSED`);
  });

  it('stops a hanging request when the signal aborts', async () => {
    const error = await failure(request({ url: `${served.base}/hang` }, undefined, AbortSignal.timeout(100)));
    expect(error.message).toMatch(/timed out/);
  });

  it('rejects URLs and methods that cannot work', async () => {
    expect((await failure(request({ url: 'not a url' }))).message).toMatch(/not a valid absolute URL/);
    expect((await failure(request({ url: 'file:///etc/passwd' }))).message).toMatch(/must use http: or https:/);
    expect((await failure(request({ url: `${served.base}/json`, body: { a: 1 } }))).message).toMatch(
      /GET request cannot have a body/,
    );
  });
});
