/**
 * Chats over both dialects: kept per id and listed per flow, newest first; an answer settles into
 * the conversation exactly once, and only while its run is still the chat's active one; a chat
 * is replaced only by its owner, and chats from before owners are adopted.
 */
import { describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend, storeHarness } from './test-support.ts';

describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s chat store', (_, backend) => {
  const { store, uid } = storeHarness(backend);
  const OWNER = 'sha256:aaaa';
  const user = (text: string) => ({ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] });

  it('keeps a chat by id, replaces it on put and keeps its creation time', async () => {
    const id = uid('chat');
    await store.chats.put(
      { id, flowId: 'f', title: 'Hi', messages: [user('hi')], activeRunId: 'r1', owner: OWNER },
      1000,
    );
    await store.chats.put(
      { id, flowId: 'f', title: 'Hi', messages: [user('hi'), user('again')], activeRunId: 'r2', owner: OWNER },
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
      owner: OWNER,
    });
    expect(await store.chats.get(uid('missing'))).toBeUndefined();
  });

  it('lists the chats of one flow, newest first, without their messages', async () => {
    const flowId = uid('flow');
    const [a, b] = [uid('a'), uid('b')];
    await store.chats.put({ id: a, flowId, title: 'A', messages: [], activeRunId: null, owner: OWNER }, 10);
    await store.chats.put({ id: b, flowId, title: 'B', messages: [], activeRunId: null, owner: OWNER }, 20);
    await store.chats.put(
      { id: uid('other'), flowId: uid('other-flow'), title: 'X', messages: [], activeRunId: null, owner: OWNER },
      30,
    );
    const listed = await store.chats.list({ flowId });
    expect(listed.map((chat) => chat.id)).toEqual([b, a]);
    expect(listed[0]).not.toHaveProperty('messages');
  });

  it('settles an answer once, and only for the active run', async () => {
    const id = uid('chat');
    await store.chats.put(
      { id, flowId: 'f', title: 'T', messages: [user('q')], activeRunId: 'run-1', owner: OWNER },
      1,
    );
    const answered = [user('q'), { id: 'msg-run-1', role: 'assistant', parts: [{ type: 'text', text: 'a' }] }];
    expect(await store.chats.settle(id, 'run-0', answered, 2)).toBe(false);
    expect(await store.chats.settle(id, 'run-1', answered, 3)).toBe(true);
    expect(await store.chats.settle(id, 'run-1', answered, 4)).toBe(false);
    expect(await store.chats.get(id)).toMatchObject({ messages: answered, activeRunId: null, updatedAt: 3 });
    expect(await store.chats.delete(id)).toBe(true);
    expect(await store.chats.delete(id)).toBe(false);
  });

  it('replaces a chat only for its owner, and lists one owner’s chats', async () => {
    const flowId = uid('flow');
    const id = uid('chat');
    const chat = { id, flowId, title: 'Mine', messages: [user('mine')], activeRunId: null };
    expect(await store.chats.put({ ...chat, owner: OWNER }, 1)).toBe(true);
    expect(await store.chats.put({ ...chat, messages: [user('taken over')], owner: 'sha256:bbbb' }, 2)).toBe(false);
    expect(await store.chats.get(id)).toMatchObject({ messages: [user('mine')], owner: OWNER, updatedAt: 1 });
    expect(await store.chats.put({ ...chat, messages: [user('mine'), user('more')], owner: OWNER }, 3)).toBe(true);
    expect(await store.chats.get(id)).toMatchObject({ messages: [user('mine'), user('more')], owner: OWNER });

    const theirs = uid('theirs');
    await store.chats.put({ ...chat, id: theirs, title: 'Theirs', owner: 'sha256:bbbb' }, 4);
    expect((await store.chats.list({ flowId, owner: OWNER })).map((c) => c.id)).toEqual([id]);
    expect((await store.chats.list({ flowId, owner: 'sha256:bbbb' })).map((c) => c.id)).toEqual([theirs]);
    expect((await store.chats.list({ flowId })).map((c) => c.id)).toEqual([theirs, id]);
  });

  it('gives chats from before owners (owner NULL) to the adopting owner, and only those', async () => {
    const flowId = uid('flow');
    const [legacy, owned] = [uid('legacy'), uid('owned')];
    const db = backend.connect();
    try {
      await db
        .insertInto('chats')
        .values({
          id: legacy,
          flow_id: flowId,
          title: 'Old',
          messages: '[]',
          active_run_id: null,
          created_at: 1,
          updated_at: 1,
          owner: null,
        })
        .execute();
    } finally {
      await db.destroy();
    }
    await store.chats.put(
      { id: owned, flowId, title: 'New', messages: [], activeRunId: null, owner: 'sha256:bbbb' },
      2,
    );
    expect((await store.chats.get(legacy))?.owner).toBeNull();
    expect(await store.chats.adoptUnowned(OWNER)).toBe(1);
    expect((await store.chats.get(legacy))?.owner).toBe(OWNER);
    expect((await store.chats.get(owned))?.owner).toBe('sha256:bbbb');
    expect(await store.chats.adoptUnowned('sha256:cccc')).toBe(0);
  });
});
