/**
 * A flow as a chat (`#/chat/<flowId>/<chatId>`): its conversations on the left, one
 * conversation in the middle. `#/chat/<flowId>` starts a new one: a fresh id goes into the
 * address at once (in place), so a reload comes back to the same conversation.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { hrefOf, replaceRoute } from '../components/route.ts';
import { trpc } from '../trpc.ts';
import { ChatSession } from './ChatSession.tsx';
import { ChatSidebar, isFreshChat, newChatId } from './ChatSidebar.tsx';
import { InputDisclosure } from './Composer.tsx';
import { type ChatClientOverride, type ChatRecord, chatClientOverrides, getChat } from './chat-api.ts';
import { chatInputFields, chatInputValue, implicitMessageField, messageInputOf } from './chat-input.ts';
import './chat.css';

interface FlowInfo {
  name: string;
  doc: unknown;
}

const inputKey = (flowId: string) => `weft.chat-input.${flowId}`;

function readStoredInput(flowId: string): Record<string, string> {
  try {
    const stored = JSON.parse(localStorage.getItem(inputKey(flowId)) ?? '{}') as unknown;
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return {};
    return Object.fromEntries(Object.entries(stored).filter(([, value]) => typeof value === 'string')) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

function useFlow(flowId: string): { flow: FlowInfo | null; error: string | null } {
  const [state, setState] = useState<{ flow: FlowInfo | null; error: string | null }>({ flow: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ flow: null, error: null });
    trpc.flows.get
      .query({ id: flowId })
      .then((record) => live && setState({ flow: { name: record.name, doc: record.doc }, error: null }))
      .catch(
        (error: unknown) =>
          live && setState({ flow: null, error: error instanceof Error ? error.message : String(error) }),
      );
    return () => {
      live = false;
    };
  }, [flowId]);
  return state;
}

/** What this server lets the page set besides the conversation; null until (or unless) it says. */
function useClientOverrides(flowId: string): readonly ChatClientOverride[] | null {
  const [allowed, setAllowed] = useState<readonly ChatClientOverride[] | null>(null);
  useEffect(() => {
    let live = true;
    setAllowed(null);
    // Not known: the input goes as typed, and a refusal names the setting.
    chatClientOverrides(flowId)
      .then((answer) => live && setAllowed(answer))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [flowId]);
  return allowed;
}

/** The stored conversation (null: a new one), loaded before the session mounts. */
function useChatRecord(chatId: string | undefined) {
  const [state, setState] = useState<{ chatId: string; record: ChatRecord | null; error: string | null } | null>(null);
  useEffect(() => {
    if (!chatId) return;
    let live = true;
    setState(null);
    // An id this page just made up is a new conversation: no need to ask (the server says 404).
    const load = isFreshChat(chatId) ? Promise.resolve(null) : getChat(chatId);
    load
      .then((record) => live && setState({ chatId, record, error: null }))
      .catch(
        (error: unknown) =>
          live && setState({ chatId, record: null, error: error instanceof Error ? error.message : String(error) }),
      );
    return () => {
      live = false;
    };
  }, [chatId]);
  return state?.chatId === chatId ? state : null;
}

export function ChatScreen({ flowId, chatId }: { flowId: string; chatId?: string | undefined }) {
  // A new conversation: give it its id in the address, in place of the bare flow address.
  useEffect(() => {
    if (!chatId) replaceRoute({ screen: 'chat', flowId, chatId: newChatId() });
  }, [flowId, chatId]);

  const { flow, error: flowError } = useFlow(flowId);
  const loaded = useChatRecord(chatId);
  const [refreshKey, setRefreshKey] = useState(0);
  const refresh = useCallback(() => setRefreshKey((key) => key + 1), []);

  const fields = useMemo(() => chatInputFields(flow?.doc), [flow]);
  const [inputTexts, setInputTexts] = useState(() => readStoredInput(flowId));
  useEffect(() => setInputTexts(readStoredInput(flowId)), [flowId]);
  const changeInput = (next: Record<string, string>) => {
    setInputTexts(next);
    try {
      localStorage.setItem(inputKey(flowId), JSON.stringify(next));
    } catch {
      // Storage full or refused: the values still go with this page's messages.
    }
  };
  // Read at send time, through a ref: the transport (and the chat) stays the same as fields change.
  const inputRef = useRef({ fields, inputTexts });
  inputRef.current = { fields, inputTexts };
  const extraInput = useCallback(() => chatInputValue(inputRef.current.fields, inputRef.current.inputTexts), []);
  const allowed = useClientOverrides(flowId);
  const allowedRef = useRef(allowed);
  allowedRef.current = allowed;
  const allowedOverrides = useCallback(() => allowedRef.current, []);

  // A conversation of another flow opened under this one: show it under its own flow.
  const record = loaded?.record;
  useEffect(() => {
    if (record && record.flowId !== flowId) replaceRoute({ screen: 'chat', flowId: record.flowId, chatId: record.id });
  }, [record, flowId]);

  return (
    <main className="chat-screen">
      <ChatSidebar flowId={flowId} chatId={chatId} refreshKey={refreshKey} />
      <section className="chat-main" aria-label="Chat">
        <header className="chat-head">
          <h1>
            {flow?.name ?? flowId} <span className="mono muted small">{flowId}</span>
          </h1>
          {record?.title ? <span className="chat-head-title muted">{record.title}</span> : null}
          <div className="topbar-spacer" />
          <a className="button ghost" href={hrefOf({ screen: 'editor', flowId })}>
            Open in editor
          </a>
          <a className="button ghost" href={hrefOf({ screen: 'runs', filters: { flow: flowId } })}>
            Runs
          </a>
        </header>
        {flowError ? (
          <p className="field-error chat-alert" role="alert">
            Could not load the flow: {flowError}
          </p>
        ) : null}
        {loaded?.error ? (
          <p className="field-error chat-alert" role="alert">
            {loaded.error}
          </p>
        ) : null}
        {chatId && loaded && !loaded.error ? (
          <ChatSession
            key={chatId}
            flowId={flowId}
            chatId={chatId}
            initial={loaded.record?.messages ?? []}
            // An answer still being produced picks up where it is (204, nothing to resume, else).
            resume
            extraInput={extraInput}
            allowedOverrides={allowedOverrides}
            onChanged={refresh}
          >
            <InputDisclosure
              // Drawn again once the flow is here: whether it starts open depends on its fields.
              key={flow ? 'flow' : 'loading'}
              fields={fields}
              values={inputTexts}
              fromMessage={implicitMessageField(fields, inputTexts, messageInputOf(flow?.doc))}
              taken={allowed === null || allowed.includes('input')}
              onChange={changeInput}
            />
          </ChatSession>
        ) : !loaded?.error ? (
          <p className="muted chat-alert">Loading the conversation…</p>
        ) : null}
      </section>
    </main>
  );
}
