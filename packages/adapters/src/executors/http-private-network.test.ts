/**
 * The http executor's private-network guard: loopback and private addresses are refused unless
 * allowed, on every redirect hop, and the address checked is the address connected to (no DNS
 * rebinding between the two).
 */
import { NonRetryableError } from '@weft/engine';
import { describe, expect, it, vi } from 'vitest';

// The resolver seam: answers queued per host name (one list of addresses per lookup, the last
// one repeating), else the real resolver. `lookups` records every name looked up.
const dns = vi.hoisted(() => ({ answers: new Map<string, string[][]>(), lookups: [] as string[] }));
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (host: string, options: object) => {
    dns.lookups.push(host);
    const queued = dns.answers.get(host);
    if (queued && queued.length > 0) {
      const answer = queued.length > 1 ? queued.shift()! : queued[0]!;
      return Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    }
    return real.lookup(host, options);
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

// A fake public first hop: fetching a URL held here answers 302 to its location, no network.
const fakeRedirects = vi.hoisted(() => new Map<string, string>());
vi.mock('undici', async (importOriginal) => {
  const real = await importOriginal<typeof import('undici')>();
  const fetch: typeof real.fetch = (input, init) => {
    const location = fakeRedirects.get(String(input));
    if (location === undefined) return real.fetch(input, init);
    return Promise.resolve(new real.Response(null, { status: 302, headers: { location } }));
  };
  return { ...real, fetch };
});

import { isPrivateAddress } from './http.ts';
import { failure, request, startServer, useFixtureServer } from './http-test-support.ts';

const served = useFixtureServer();

describe('http executor', () => {
  it('refuses loopback addresses by default, naming the address and the way to allow it', async () => {
    const error = await failure(request({ url: `${served.base}/json` }, {}));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback\/private/);
    expect(error.message).toMatch(/WEFT_HTTP_ALLOW_PRIVATE=1/);
  });

  it('refuses host names that resolve to loopback, and IPv4-mapped IPv6 loopback', async () => {
    const port = new URL(served.base).port;
    expect((await failure(request({ url: `http://localhost:${port}/json` }, {}))).message).toMatch(/refused/);
    expect((await failure(request({ url: `http://[::ffff:127.0.0.1]:${port}/json` }, {}))).message).toMatch(/refused/);
    expect((await failure(request({ url: `http://[::1]:${port}/json` }, {}))).message).toMatch(/refused/);
  });

  it('allows private addresses with allowPrivateNetwork or WEFT_HTTP_ALLOW_PRIVATE=1', async () => {
    expect(await request({ url: `${served.base}/json` })).toMatchObject({ status: 200, body: { ok: true, n: 1 } });
    const viaEnv = await request({ url: `${served.base}/json` }, { env: { WEFT_HTTP_ALLOW_PRIVATE: '1' } });
    expect(viaEnv).toMatchObject({ status: 200 });
  });

  it.each([
    ['an address', () => `${served.base}/json`],
    ['a name', () => `http://localhost:${new URL(served.base).port}/json`],
  ])('checks every redirect hop against the private-address rule: a hop to %s', async (_what, location) => {
    // A public first hop (faked, see `fakeRedirects`) that redirects to loopback must not reach loopback.
    fakeRedirects.set('http://public.example/start', location());
    const before = served.fixture.seen.length;
    try {
      const error = await failure(request({ url: 'http://public.example/start' }, {}));
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toMatch(/refused: (127\.0\.0\.1|localhost) resolves to 127\.0\.0\.1/);
      expect(served.fixture.seen.length).toBe(before);
    } finally {
      fakeRedirects.clear();
    }
  });
});

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

/** A documentation-range address (TEST-NET-3): public by the rules, never a real server. */
const PUBLIC_TEST_ADDRESS = '203.0.113.10';

describe('DNS rebinding', () => {
  it('connects to the address it checked, not to a second, loopback answer', async () => {
    const target = await startServer();
    // First answer public, every later one loopback: a check and a connect that each resolve
    // the name would check the public address and connect to the loopback one.
    dns.answers.set('localhost', [[PUBLIC_TEST_ADDRESS], ['127.0.0.1']]);
    dns.lookups.length = 0;
    try {
      // Reaching the public address may answer, fail or time out; it must not reach loopback.
      await request({ url: `http://localhost:${target.port}/private` }, {}, AbortSignal.timeout(2000)).catch(
        () => undefined,
      );
      expect(target.received).toEqual([]);
      expect(dns.lookups.filter((host) => host === 'localhost')).toEqual(['localhost']);
    } finally {
      dns.answers.delete('localhost');
      await target.close();
    }
  });

  it('refuses a name that answers a public and a loopback address together, naming host and address', async () => {
    const target = await startServer();
    dns.answers.set('localhost', [[PUBLIC_TEST_ADDRESS, '127.0.0.1']]);
    try {
      const error = await failure(request({ url: `http://localhost:${target.port}/private` }, {}));
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toMatch(/refused: localhost resolves to 127\.0\.0\.1, a loopback\/private/);
      expect(target.received).toEqual([]);
    } finally {
      dns.answers.delete('localhost');
      await target.close();
    }
  });
});
