/**
 * Chats over both dialects: kept per id and listed per flow, newest first; an answer settles into
 * the conversation exactly once, and only while its run is still the chat's active one.
 */
import { describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend, storeHarness } from './test-support.ts';

describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s chat store', (_, backend) => {
  const { store, uid } = storeHarness(backend);
  const user = (text: string) => ({ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] });

  it('keeps a chat by id, replaces it on put and keeps its creation time', async () => {
    const id = uid('chat');
    await store.chats.put({ id, flowId: 'f', title: 'Hi', messages: [user('hi')], activeRunId: 'r1' }, 1000);
    await store.chats.put(
      { id, flowId: 'f', title: 'Hi', messages: [user('hi'), user('again')], activeRunId: 'r2' },
      2000,
    );
    expect(await store.chats.get(id)).toEqual({
      id,
      flowId: 'f',
      title: 'Hi',
      messages: [user('hi'), user('again')],
      activeRunId: 'r2',
      createdAt: 1000,
      updatedAt: 2000,
    });
    expect(await store.chats.get(uid('missing'))).toBeUndefined();
  });

  it('lists the chats of one flow, newest first, without their messages', async () => {
    const flowId = uid('flow');
    const [a, b] = [uid('a'), uid('b')];
    await store.chats.put({ id: a, flowId, title: 'A', messages: [], activeRunId: null }, 10);
    await store.chats.put({ id: b, flowId, title: 'B', messages: [], activeRunId: null }, 20);
    await store.chats.put(
      { id: uid('other'), flowId: uid('other-flow'), title: 'X', messages: [], activeRunId: null },
      30,
    );
    const listed = await store.chats.list({ flowId });
    expect(listed.map((chat) => chat.id)).toEqual([b, a]);
    expect(listed[0]).not.toHaveProperty('messages');
  });

  it('settles an answer once, and only for the active run', async () => {
    const id = uid('chat');
    await store.chats.put({ id, flowId: 'f', title: 'T', messages: [user('q')], activeRunId: 'run-1' }, 1);
    const answered = [user('q'), { id: 'msg-run-1', role: 'assistant', parts: [{ type: 'text', text: 'a' }] }];
    expect(await store.chats.settle(id, 'run-0', answered, 2)).toBe(false);
    expect(await store.chats.settle(id, 'run-1', answered, 3)).toBe(true);
    expect(await store.chats.settle(id, 'run-1', answered, 4)).toBe(false);
    expect(await store.chats.get(id)).toMatchObject({ messages: answered, activeRunId: null, updatedAt: 3 });
    expect(await store.chats.delete(id)).toBe(true);
    expect(await store.chats.delete(id)).toBe(false);
  });
});
