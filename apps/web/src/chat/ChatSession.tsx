/**
 * One conversation, live: `useChat` over the chat transport, mounted once the stored messages
 * are loaded (they seed it). `resume`: an answer still being produced (a reload mid-answer) is
 * streamed again from its start into a fresh assistant message — the stored messages leave the
 * active run's partial answer out, so nothing shows twice.
 */
import { useChat } from '@ai-sdk/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Composer } from './Composer.tsx';
import {
  answerApproval,
  type ChatClientOverride,
  type ChatMessage,
  chatTransport,
  getChat,
  stopChat,
} from './chat-api.ts';
import { MessageList } from './MessageList.tsx';

/** How long a stopped run's stream gets to end by itself before the connection is cut. */
const STOP_GRACE_MS = 5000;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function ChatSession({
  flowId,
  chatId,
  initial,
  resume,
  extraInput,
  allowedOverrides,
  onChanged,
  children,
}: {
  flowId: string;
  chatId: string;
  initial: ChatMessage[];
  resume: boolean;
  /** The run input besides the conversation, read when a message is sent. */
  extraInput: () => Record<string, unknown>;
  /** What this server lets the page set besides the conversation (null: not known yet). */
  allowedOverrides: () => readonly ChatClientOverride[] | null;
  /** The conversation changed on the server (a message sent, an answer finished). */
  onChanged: () => void;
  /** Drawn between the messages and the composer (the "Input" disclosure). */
  children?: React.ReactNode;
}) {
  const transport = useMemo(
    () => chatTransport(flowId, extraInput, allowedOverrides),
    [flowId, extraInput, allowedOverrides],
  );
  const [actionError, setActionError] = useState<string | null>(null);
  const { messages, status, error, sendMessage, stop, setMessages, resumeStream, clearError } = useChat<ChatMessage>({
    id: chatId,
    messages: initial,
    resume,
    transport,
    // Reading the chat settles the ended run's answer into it (the list then shows it idle).
    onFinish: () => {
      void getChat(chatId)
        .catch(() => undefined)
        .finally(onChanged);
    },
  });
  const busy = status === 'submitted' || status === 'streaming';

  // A new conversation is listed once the server has it: when its first answer starts.
  const announced = useRef(initial.length > 0);
  useEffect(() => {
    if (status === 'streaming' && !announced.current) {
      announced.current = true;
      onChanged();
    }
  }, [status, onChanged]);

  const send = (text: string) => {
    setActionError(null);
    clearError();
    void sendMessage({ text });
  };

  // Stop cancels the run on the server; its stream then ends by itself with the run marked
  // cancelled. Only when the server cannot be told (or the stream lingers) is the connection cut.
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const stopRun = async () => {
    setActionError(null);
    try {
      await stopChat(chatId);
      for (let waited = 0; busyRef.current && waited < STOP_GRACE_MS; waited += 100)
        await new Promise((done) => setTimeout(done, 100));
      if (busyRef.current) await stop();
    } catch (failure) {
      setActionError(messageOf(failure));
      await stop();
    } finally {
      onChanged();
    }
  };

  // Stable for the parts: reads the latest status through a ref.
  const statusRef = useRef(status);
  statusRef.current = status;
  const onApproval = useCallback(
    async (runId: string, stepId: string, approved: boolean, comment: string) => {
      await answerApproval(chatId, { runId, stepId, approved, ...(comment ? { comment } : {}) });
      // An open stream carries the run on; a closed one (the run had parked) is picked up again:
      // the stored messages without the run's answer, then the run's stream from its start.
      if (statusRef.current === 'streaming' || statusRef.current === 'submitted') return;
      const record = await getChat(chatId);
      if (record) setMessages(record.messages);
      await resumeStream();
    },
    [chatId, setMessages, resumeStream],
  );

  const problem = actionError ?? (error ? messageOf(error) : null);
  return (
    <div className="chat-session" data-testid="chat-session" data-chat-status={status}>
      <MessageList
        messages={messages}
        status={status}
        onApproval={onApproval}
        empty={
          <div className="chat-empty">
            <h2>Start a conversation</h2>
            <p className="muted">
              Each message starts a run of this flow with the conversation so far as{' '}
              <span className="mono">input.messages</span>. Tool calls, steps and approvals show as the run goes.
            </p>
          </div>
        }
      />
      <div className="chat-footer">
        {problem ? (
          <div className="chat-error" role="alert">
            <span>{problem}</span>
            <button
              type="button"
              className="icon-button"
              aria-label="Dismiss the error"
              onClick={() => {
                setActionError(null);
                clearError();
              }}
            >
              ×
            </button>
          </div>
        ) : null}
        {children}
        <Composer busy={busy} onSend={send} onStop={stopRun} />
      </div>
    </div>
  );
}
