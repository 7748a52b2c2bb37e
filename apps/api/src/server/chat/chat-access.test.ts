/**
 * Who may do what through `/api/chat`, over real HTTP (issue 27):
 * - `fixtures`, `backend` and `input` from a client are refused (403 naming the field) unless the
 *   operator allowed them, and then work;
 * - a chat belongs to the credential that created it: with two tokens, the second reads,
 *   streams, lists, stops, answers or replaces none of the first's chats; a chat from before
 *   owners goes to the server's primary token;
 * - malformed requests are 4xx naming the problem: a bad percent-escape in the path, a
 *   `__proto__` key in the body.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../http.ts';
import { type FlowDoc, type TestServer, testServices } from '../test-support.ts';
import { parseChatClientOverrides } from './chat-overrides.ts';

const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-fedcba9876543210';

/** Answers the conversation with the offline echo model. */
const echoFlow: FlowDoc = {
  irVersion: 1,
  id: 'echo-chat',
  name: 'Echo chat',
  input: { type: 'object', properties: { messages: { type: 'array' }, tone: { type: 'string' } } },
  steps: [{ id: 'answer', type: 'llm', model: 'mock:echo', messages: '=input.messages' }],
  output: '=steps.answer.output.text',
};

const userMessage = (text: string) => ({ id: `u-${randomUUID()}`, role: 'user', parts: [{ type: 'text', text }] });

let test: TestServer;
/** No token, nothing a client may override (a plain `weft serve` on loopback). */
let locked: Awaited<ReturnType<typeof startServer>>;
/** No token, every override allowed (scripts/start.sh's demo). */
let demo: Awaited<ReturnType<typeof startServer>>;
/** Two tokens: two credentials. */
let shared: Awaited<ReturnType<typeof startServer>>;
/** The same store served under one token each (a second instance, or a changed token). */
let serverA: Awaited<ReturnType<typeof startServer>>;
let serverB: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  test = await testServices();
  await test.services.store.flows.save(echoFlow);
  const { services } = test;
  locked = await startServer({ services, host: '127.0.0.1', port: 0 });
  demo = await startServer({
    services,
    host: '127.0.0.1',
    port: 0,
    chatClientOverrides: parseChatClientOverrides('all'),
  });
  shared = await startServer({ services, host: '127.0.0.1', port: 0, token: [TOKEN_A, TOKEN_B] });
  serverA = await startServer({ services, host: '127.0.0.1', port: 0, token: TOKEN_A });
  serverB = await startServer({ services, host: '127.0.0.1', port: 0, token: TOKEN_B });
});

afterAll(async () => {
  await locked?.close();
  await demo?.close();
  await shared?.close();
  await serverA?.close();
  await serverB?.close();
  await test?.close();
});

const auth = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

async function post(base: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth(token) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function get(base: string, path: string, token?: string) {
  const response = await fetch(`${base}${path}`, { headers: auth(token) });
  return { status: response.status, text: await response.text() };
}

const errorOf = (text: string) => (JSON.parse(text) as { error: { message: string } }).error.message;

describe('what a chat client may set', () => {
  const cases: [field: string, value: unknown][] = [
    ['fixtures', { answer: [{ text: 'forced' }] }],
    ['backend', 'inprocess'],
    ['input', { tone: 'dry' }],
  ];

  it.each(cases)('refuses "%s" with 403 naming it when the operator did not allow it', async (field, value) => {
    const chatId = `locked-${field}`;
    const answer = await post(locked.url, '/api/chat/echo-chat', {
      id: chatId,
      messages: [userMessage('hi')],
      [field]: value,
    });
    expect(answer.status).toBe(403);
    expect(errorOf(answer.text)).toContain(`"${field}" may not be set by a chat client on this server`);
    expect(errorOf(answer.text)).toContain('WEFT_CHAT_CLIENT_OVERRIDES');
    // Refused before anything happened: no chat, so no run.
    expect(await test.services.store.chats.get(chatId)).toBeUndefined();
  });

  it.each(cases)('serves "%s" where the operator allowed it', async (field, value) => {
    const answer = await post(demo.url, '/api/chat/echo-chat', {
      id: `demo-${field}`,
      messages: [userMessage('hi')],
      [field]: value,
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('data: [DONE]');
  });

  it('serves a plain conversation without any override', async () => {
    const answer = await post(locked.url, '/api/chat/echo-chat', { id: 'locked-plain', messages: [userMessage('hi')] });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('data: [DONE]');
  });

  it('tells a client what it may set with the list of chats, so the chat page sends nothing refused', async () => {
    const allowedOn = async (base: string) =>
      (JSON.parse((await get(base, '/api/chat?flowId=echo-chat')).text) as { clientOverrides: string[] })
        .clientOverrides;
    expect(await allowedOn(locked.url)).toEqual([]);
    expect(await allowedOn(demo.url)).toEqual(['fixtures', 'backend', 'input']);
  });

  it('reads the setting strictly', () => {
    expect([...parseChatClientOverrides('fixtures, input')]).toEqual(['fixtures', 'input']);
    expect(parseChatClientOverrides('none').size).toBe(0);
    expect(parseChatClientOverrides(undefined).size).toBe(0);
    expect(() => parseChatClientOverrides('fixtures,tools')).toThrow(/unknown chat client override 'tools'/);
  });
});

describe('a chat belongs to the credential that created it', () => {
  const setups: [what: string, as: (token: string) => string][] = [
    ['two tokens of one server', () => shared.url],
    ['two servers of one store, a token each', (token) => (token === TOKEN_A ? serverA.url : serverB.url)],
  ];

  it.each(setups)(
    'is read, streamed, listed, stopped, answered and continued only by its token (%s)',
    async (_, at) => {
      const chatId = `owned-${randomUUID()}`;
      const first = await post(
        at(TOKEN_A),
        '/api/chat/echo-chat',
        { id: chatId, messages: [userMessage('mine')] },
        TOKEN_A,
      );
      expect(first.status).toBe(200);

      const mine = await get(at(TOKEN_A), `/api/chat/${chatId}`, TOKEN_A);
      expect(mine.status).toBe(200);
      const chat = JSON.parse(mine.text) as { id: string; messages: unknown[] };
      expect(chat.id).toBe(chatId);
      expect(chat.messages).toHaveLength(2); // the question and its settled answer
      expect(mine.text).not.toContain('sha256:'); // the owner stays on the server

      // To the other token the chat is exactly as an unknown one.
      const unknown = await get(at(TOKEN_B), '/api/chat/never-made', TOKEN_B);
      const theirs = await get(at(TOKEN_B), `/api/chat/${chatId}`, TOKEN_B);
      expect(theirs.status).toBe(404);
      expect(errorOf(theirs.text)).toBe(`unknown chat '${chatId}'`);
      expect(unknown.status).toBe(404);
      expect((await get(at(TOKEN_B), `/api/chat/${chatId}/stream`, TOKEN_B)).status).toBe(204);
      expect((await post(at(TOKEN_B), `/api/chat/${chatId}/stop`, {}, TOKEN_B)).status).toBe(404);
      const approval = { runId: 'run_x', stepId: 'gate', approved: true };
      expect((await post(at(TOKEN_B), `/api/chat/${chatId}/approval`, approval, TOKEN_B)).status).toBe(404);
      const listed = (token: string) =>
        get(at(token), '/api/chat?flowId=echo-chat', token).then((answer) =>
          (JSON.parse(answer.text) as { chats: { id: string }[] }).chats.map((c) => c.id),
        );
      expect(await listed(TOKEN_A)).toContain(chatId);
      expect(await listed(TOKEN_B)).not.toContain(chatId);

      // Replacing its history under the same id: refused, and nothing changed.
      const takeover = await post(
        at(TOKEN_B),
        '/api/chat/echo-chat',
        { id: chatId, messages: [userMessage('rewritten history')] },
        TOKEN_B,
      );
      expect(takeover.status).toBe(403);
      expect(errorOf(takeover.text)).toContain(`id: chat '${chatId}' belongs to another credential`);
      const after = JSON.parse((await get(at(TOKEN_A), `/api/chat/${chatId}`, TOKEN_A)).text) as {
        messages: unknown[];
      };
      expect(after.messages).toEqual(chat.messages);

      // Its own token continues it.
      const next = await post(
        at(TOKEN_A),
        '/api/chat/echo-chat',
        { id: chatId, messages: [...chat.messages, userMessage('more')] },
        TOKEN_A,
      );
      expect(next.status).toBe(200);
    },
  );

  it('stores a hash of the token as the owner, never the token', async () => {
    const chatId = `hashed-${randomUUID()}`;
    expect(
      (await post(shared.url, '/api/chat/echo-chat', { id: chatId, messages: [userMessage('x')] }, TOKEN_B)).status,
    ).toBe(200);
    const owner = (await test.services.store.chats.get(chatId))?.owner ?? '';
    expect(owner).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(owner).not.toContain(TOKEN_B);
  });

  it('keeps a token-less server’s chats from the token holders of another', async () => {
    const chatId = `anonymous-${randomUUID()}`;
    expect((await post(locked.url, '/api/chat/echo-chat', { id: chatId, messages: [userMessage('x')] })).status).toBe(
      200,
    );
    expect((await get(locked.url, `/api/chat/${chatId}`)).status).toBe(200);
    expect((await get(shared.url, `/api/chat/${chatId}`, TOKEN_A)).status).toBe(404);
  });

  it('gives a chat from before owners to the server’s primary token', async () => {
    // A row as the schema before 0007_chat_owner left it, in a store no chat request has touched.
    const fresh = await testServices();
    try {
      await fresh.services.store.flows.save(echoFlow);
      const db = new DatabaseSync(join(fresh.dir, 'weft.db'), { timeout: 5_000 });
      db.prepare(
        'INSERT INTO chats (id, flow_id, title, messages, active_run_id, created_at, updated_at, owner) VALUES (?, ?, ?, ?, NULL, 1, 1, NULL)',
      ).run('legacy-chat', 'echo-chat', 'Old', '[]');
      db.close();
      const server = await startServer({
        services: fresh.services,
        host: '127.0.0.1',
        port: 0,
        token: [TOKEN_A, TOKEN_B],
      });
      try {
        expect((await get(server.url, '/api/chat/legacy-chat', TOKEN_B)).status).toBe(404);
        expect((await get(server.url, '/api/chat/legacy-chat', TOKEN_A)).status).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('malformed chat requests', () => {
  it.each([
    ['GET', '/api/chat/%'],
    ['GET', '/api/chat/%E0%A4%A'],
    ['GET', '/api/chat/%zz/stream'],
    ['GET', '/api/chat/echo-chat/%/stream'],
    ['POST', '/api/chat/%/stop'],
    ['POST', '/api/chat/%'],
  ])('%s %s: 400 naming the bad escape', async (method, path) => {
    const answer =
      method === 'GET' ? await get(locked.url, path) : await post(locked.url, path, { id: 'c', messages: [] });
    expect(answer.status).toBe(400);
    expect(errorOf(answer.text)).toMatch(/^path: '.*%.*' is not valid percent-encoding/);
  });

  it.each([
    ['input', '{"id":"proto-1","messages":[MSG],"input":{"__proto__":{"tone":"x"}}}', 'input.__proto__'],
    [
      'a message',
      '{"id":"proto-2","messages":[{"__proto__":{},"id":"u","role":"user","parts":[]}]}',
      'messages[0].__proto__',
    ],
    ['fixtures', '{"id":"proto-3","messages":[MSG],"fixtures":{"__proto__":[]}}', 'fixtures.__proto__'],
  ])('refuses a __proto__ key in %s with 400 naming where', async (_, template, where) => {
    const body = template.replace('MSG', JSON.stringify(userMessage('hi')));
    const answer = await post(demo.url, '/api/chat/echo-chat', body);
    expect(answer.status).toBe(400);
    expect(errorOf(answer.text)).toBe(
      `${where}: '__proto__' cannot be a key: JavaScript would read it as the object's prototype, not as data`,
    );
  });

  it('refuses a __proto__ key in an approval answer', async () => {
    const answer = await post(
      locked.url,
      '/api/chat/some-chat/approval',
      '{"runId":"r","stepId":"s","approved":true,"__proto__":{"approved":false}}',
    );
    expect(answer.status).toBe(400);
    expect(errorOf(answer.text)).toContain('__proto__: ');
  });
});
