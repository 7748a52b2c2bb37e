import { describe, expect, it } from 'vitest';
import type { HttpCallInput } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';
import { isCredentialHeader } from './http.ts';

function setup() {
  const recorder = recordCalls(
    createExecutor({
      http: (request) => ({
        status: 201,
        headers: { 'content-type': 'application/json' },
        body: { echoed: request.body ?? null },
      }),
    }),
  );
  return { host: new MemoryHost({ execute: recorder.execute }), calls: recorder.calls };
}

describe('http schema', () => {
  it('accepts a request with method, headers and body', () => {
    expect(
      stepIssues({
        id: 'h',
        type: 'http',
        method: 'POST',
        url: 'https://x/{{ input.id }}',
        headers: { a: 'b' },
        body: { x: 1 },
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing url', { url: undefined }, 'steps[0].url', /expected string/],
    ['an unknown method', { method: 'FETCH' }, 'steps[0].method', /expected one of "GET"\|"POST"/],
    ['a header that is not a string', { headers: { retries: 3 } }, 'steps[0].headers.retries', /expected string/],
    ['a url template that does not close', { url: 'https://x/{{ input.id' }, 'steps[0].url', /is not closed/],
    [
      'an idempotencyKey that is not a boolean',
      { idempotencyKey: 'off' },
      'steps[0].idempotencyKey',
      /idempotencyKey must be true \(send an Idempotency-Key header, the default\) or false \(send none\)/,
    ],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'h', type: 'http', url: 'https://x', ...change });
    expect(issues).toContainEqual({ stepId: 'h', path, message: expect.stringMatching(message) });
  });
});

describe('http handler', () => {
  it('renders url, headers and body, defaults to GET, and returns status, headers and body', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      {
        id: 'post',
        type: 'http',
        method: 'POST',
        url: 'https://api.example/tickets/{{ input.id }}',
        headers: { authorization: 'Bearer {{ input.token }}' },
        body: { id: '=input.id', tags: ['=input.tag', 'fixed'] },
      },
      { id: 'get', type: 'http', url: 'https://api.example/ping' },
    ]);
    await interpret(flow, { id: 7, token: 't0k', tag: 'vip' }, host);

    const post: HttpCallInput = {
      method: 'POST',
      url: 'https://api.example/tickets/7',
      headers: { authorization: 'Bearer t0k' },
      body: { id: 7, tags: ['vip', 'fixed'] },
    };
    expect(calls.map((c) => [c.id, c.call])).toEqual([
      ['post', { kind: 'http', input: post }],
      ['get', { kind: 'http', input: { method: 'GET', url: 'https://api.example/ping', headers: {} } }],
    ]);
    // The executor got the real header (above); the event shows it redacted.
    expect(host.events[0]).toEqual({
      type: 'step.started',
      stepId: 'post',
      stepType: 'http',
      input: { ...post, headers: { authorization: '[redacted]' } },
    });
    expect(host.events[1]).toEqual({
      type: 'step.completed',
      stepId: 'post',
      output: { status: 201, headers: { 'content-type': 'application/json' }, body: { echoed: post.body! } },
    });
  });

  it('hands the executor the opt-out from the Idempotency-Key header, and nothing when the step keeps it', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      { id: 'quiet', type: 'http', method: 'POST', url: 'https://x', idempotencyKey: false },
      { id: 'keyed', type: 'http', method: 'POST', url: 'https://x', idempotencyKey: true },
    ]);
    await interpret(flow, null, host);
    expect(calls.map((c) => c.call)).toEqual([
      { kind: 'http', input: { method: 'POST', url: 'https://x', headers: {}, idempotencyKey: false } },
      // Absent rather than true: the call hashes as it did before the field existed.
      { kind: 'http', input: { method: 'POST', url: 'https://x', headers: {} } },
    ]);
  });

  it('retries 3 times by default and passes the step timeout', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      { id: 'a', type: 'http', url: 'https://x' },
      { id: 'b', type: 'http', url: 'https://x', timeout: '10s', retry: { maxAttempts: 1 } },
    ]);
    await interpret(flow, null, host);
    expect(calls[0]!.policy).toEqual({
      retry: { maxAttempts: 3, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 },
    });
    expect(calls[1]!.policy).toEqual({
      retry: { maxAttempts: 1, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 },
      timeoutMs: 10_000,
    });
  });

  it('fails with the expression error when the url cannot be rendered, before calling anything', async () => {
    const { host, calls } = setup();
    const flow = testFlow([{ id: 'h', type: 'http', url: 'https://x/{{ input.a.b }}' }]);
    await expect(interpret(flow, { a: null }, host)).rejects.toThrow(/input\.a/);
    expect(calls).toEqual([]);
    expect(host.events.map((e) => e.type)).toEqual(['step.started', 'step.failed']);
  });
});

describe('isCredentialHeader', () => {
  it.each([
    ['authorization', true],
    ['Proxy-Authorization', true],
    ['cookie', true],
    ['x-api-key', true],
    ['api-key', true],
    ['apikey', true],
    ['X-Api_Key', true],
    ['x-auth-token', true],
    ['x-client-secret', true],
    ['x-db-password', true],
    ['accept', false],
    ['content-type', false],
    ['x-trace-id', false],
    ['user-agent', false],
  ])('%s → %s', (name, expected) => {
    expect(isCredentialHeader(name)).toBe(expected);
  });
});

describe('http step.started redaction', () => {
  it('redacts credential headers, values read from credential fields, URL userinfo and credential query values', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      { id: 'login', type: 'transform', value: { session: '=input.session' } },
      {
        id: 'call',
        type: 'http',
        url: 'https://bob:pw-secret@api.example/hooks/{{ input.hookSecret }}?q={{ input.q }}&api_key={{ input.key }}&access_token=tok-secret',
        headers: {
          authorization: 'Bearer {{ input.apiToken }}',
          cookie: 'sid=cookie-secret',
          'x-api-key': 'key-secret',
          'x-upstream': 'Bearer {{ input.apiToken }}',
          'x-signed': "{{ input['clientSecret'] }}",
          'x-session': '=steps.login.output.session',
          'x-requested-by': '{{ input.author }}',
          accept: 'application/json',
        },
      },
    ]);
    const input = {
      apiToken: 'token-secret',
      clientSecret: 'client-secret',
      hookSecret: 'hook-secret',
      session: 's1',
      author: 'ann',
      q: 'hi',
      key: 'k',
    };
    await interpret(flow, input, host);

    expect(calls[0]!.call).toEqual({
      kind: 'http',
      input: {
        method: 'GET',
        url: 'https://bob:pw-secret@api.example/hooks/hook-secret?q=hi&api_key=k&access_token=tok-secret',
        headers: {
          authorization: 'Bearer token-secret',
          cookie: 'sid=cookie-secret',
          'x-api-key': 'key-secret',
          'x-upstream': 'Bearer token-secret',
          'x-signed': 'client-secret',
          'x-session': 's1',
          'x-requested-by': 'ann',
          accept: 'application/json',
        },
      },
    });
    const started = host.events.find((e) => e.type === 'step.started' && e.stepId === 'call');
    expect(started).toEqual({
      type: 'step.started',
      stepId: 'call',
      stepType: 'http',
      input: {
        method: 'GET',
        url: 'https://[redacted]@api.example/hooks/[redacted]?q=hi&api_key=[redacted]&access_token=[redacted]',
        headers: {
          authorization: '[redacted]',
          cookie: '[redacted]',
          'x-api-key': '[redacted]',
          'x-upstream': '[redacted]',
          'x-signed': '[redacted]',
          'x-session': 's1',
          // "author" reads like "auth": a false positive errs on the side of hiding.
          'x-requested-by': '[redacted]',
          accept: 'application/json',
        },
      },
    });
  });
});
