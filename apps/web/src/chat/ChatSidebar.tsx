/** The flow's conversations, newest first, and "New chat". */
import { generateId } from 'ai';
import { useEffect, useState } from 'react';
import { hrefOf, navigate } from '../components/route.ts';
import { type ChatSummary, listChats } from './chat-api.ts';

function when(at: number): string {
  const date = new Date(at);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** Ids this page made up for new conversations: the server does not know them yet. */
const fresh = new Set<string>();

/** A fresh conversation's id: chosen here, the server learns it with the first message. */
export function newChatId(): string {
  const id = generateId();
  fresh.add(id);
  return id;
}

/** Whether `chatId` is one this page just made up (nothing to load for it). */
export function isFreshChat(chatId: string): boolean {
  return fresh.has(chatId);
}

export function ChatSidebar({
  flowId,
  chatId,
  refreshKey,
}: {
  flowId: string;
  chatId: string | undefined;
  /** Changes when the list should be read again. */
  refreshKey: number;
}) {
  const [chats, setChats] = useState<ChatSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey asks for a new read
  useEffect(() => {
    let live = true;
    listChats(flowId)
      .then((list) => {
        if (!live) return;
        setChats(list);
        setError(null);
      })
      .catch((failure: unknown) => live && setError(failure instanceof Error ? failure.message : String(failure)));
    return () => {
      live = false;
    };
  }, [flowId, refreshKey]);

  return (
    <aside className="chat-sidebar" aria-label="Conversations">
      <div className="chat-sidebar-head">
        <a className="button ghost" href={hrefOf({ screen: 'editor', flowId })} aria-label="Back to the flow">
          ← Flow
        </a>
        <button
          type="button"
          className="button primary"
          onClick={() => navigate({ screen: 'chat', flowId, chatId: newChatId() })}
        >
          + New chat
        </button>
      </div>
      {error ? (
        <p className="field-error chat-sidebar-note" role="alert">
          {error}
        </p>
      ) : null}
      {chats === null && !error ? <p className="muted small chat-sidebar-note">Loading…</p> : null}
      {chats?.length === 0 ? <p className="muted small chat-sidebar-note">No conversations yet.</p> : null}
      <ul className="chat-list">
        {(chats ?? []).map((chat) => (
          <li key={chat.id}>
            <a
              className="chat-list-item"
              href={hrefOf({ screen: 'chat', flowId, chatId: chat.id })}
              aria-current={chat.id === chatId ? 'page' : undefined}
              data-testid="chat-list-item"
              data-chat-id={chat.id}
            >
              <span className="chat-list-title">{chat.title || 'Untitled'}</span>
              <span className="chat-list-meta small muted">
                {chat.activeRunId ? (
                  <span className="chat-list-live" title="An answer is being produced">
                    ●
                  </span>
                ) : null}
                {when(chat.updatedAt)}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </aside>
  );
}
