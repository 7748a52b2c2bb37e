/**
 * Credentials in the http executor: credential headers dropped on a cross-origin redirect, never
 * in an error message, and shown as [redacted] in step events while the server gets the values.
 */
import { interpret, NonRetryableError, type RunEventInput, type StepHost, validateFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { failure, request, startServer, useFixtureServer } from './http-test-support.ts';
import { createExecutorRegistry } from './index.ts';

const served = useFixtureServer();

describe('credentials', () => {
  const credentials = {
    authorization: 'Bearer a-secret',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    cookie: 'sid=s-secret',
    'x-api-key': 'k-secret',
    'api-key': 'k2-secret',
    'x-auth-token': 't-secret',
    'x-client-secret': 'c-secret',
  };
  const plain = { accept: 'application/json', 'x-trace-id': 'trace-1' };

  it('drops every credential header on a cross-origin 307 and keeps them on a same-origin one', async () => {
    const other = await startServer();
    const first = await startServer((path, res) => {
      const location = path === '/to-other' ? `${other.url}/landing` : path === '/to-same' ? '/landing' : undefined;
      if (location === undefined) return false;
      res.writeHead(307, { location });
      res.end();
      return true;
    });
    try {
      const headers = { ...credentials, ...plain };
      expect(await request({ url: `${first.url}/to-other`, headers })).toMatchObject({ status: 200 });
      expect(other.received.map((r) => r.path)).toEqual(['/landing']);
      const forwarded = other.received[0]!.headers;
      expect(Object.keys(credentials).filter((name) => name in forwarded)).toEqual([]);
      expect(forwarded).toMatchObject(plain);

      expect(await request({ url: `${first.url}/to-same`, headers })).toMatchObject({ status: 200 });
      expect(first.received.map((r) => r.path)).toEqual(['/to-other', '/to-same', '/landing']);
      expect(first.received[2]!.headers).toMatchObject({ ...credentials, ...plain });
    } finally {
      await other.close();
      await first.close();
    }
  });

  it('never puts a header value in an error message', async () => {
    const error = await failure(
      request({ url: `${served.base}/json`, headers: { authorization: 'Bearer sec\nret-value' } }),
    );
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/header "authorization"/);
    expect(error.message).not.toMatch(/Bearer|ret-value/);
  });

  it('never puts URL userinfo or query in an error message', async () => {
    const withUserinfo = await failure(
      request({ url: `${served.base.replace('//', '//bob:pw-secret@')}/json?token=q-secret` }),
    );
    expect(withUserinfo).toBeInstanceOf(NonRetryableError);
    expect(withUserinfo.message).toMatch(/must not carry credentials/);
    const unparsable = await failure(request({ url: 'http://bob:pw-secret@bad host/?token=q-secret' }));
    expect(unparsable.message).toMatch(/not a valid absolute URL: "http:\/\/bad host\/"/);
    for (const error of [withUserinfo, unparsable]) expect(error.message).not.toMatch(/pw-secret|q-secret/);
  });
});

describe('http step events', () => {
  it('shows credential headers as [redacted] on step.started while the server gets the real values', async () => {
    const target = await startServer();
    const registry = createExecutorRegistry({ env: {}, http: { allowPrivateNetwork: true } });
    const events: RunEventInput[] = [];
    const unused = () => Promise.reject(new Error('not used by this flow'));
    const host: StepHost = {
      run: (id, call) =>
        registry.execute(call, { signal: new AbortController().signal, runId: 'run-1', stepId: id, emitDelta() {} }),
      waitForApproval: unused,
      sleep: unused,
      spawn: unused,
      emit: (event) => events.push(event),
    };
    const headers = {
      authorization: 'Bearer {{ input.apiToken }}',
      cookie: 'sid=cookie-secret',
      'x-api-key': 'key-secret',
      'x-upstream': 'Bearer {{ input.apiToken }}',
      accept: 'application/json',
    };
    const validated = validateFlow({
      irVersion: 1,
      id: 'call-api',
      name: 'Call an API',
      steps: [{ id: 'call', type: 'http', url: `${target.url}/hook`, headers }],
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.errors));
    try {
      await interpret(validated.flow, { apiToken: 'token-secret' }, host);
      const started = events.find((event) => event.type === 'step.started');
      expect(started).toEqual({
        type: 'step.started',
        stepId: 'call',
        stepType: 'http',
        input: {
          method: 'GET',
          url: `${target.url}/hook`,
          headers: {
            authorization: '[redacted]',
            cookie: '[redacted]',
            'x-api-key': '[redacted]',
            'x-upstream': '[redacted]',
            accept: 'application/json',
          },
        },
      });
      expect(JSON.stringify(events)).not.toMatch(/secret/);
      expect(target.received[0]!.headers).toMatchObject({
        authorization: 'Bearer token-secret',
        cookie: 'sid=cookie-secret',
        'x-api-key': 'key-secret',
        'x-upstream': 'Bearer token-secret',
        accept: 'application/json',
      });
    } finally {
      await target.close();
    }
  });
});
