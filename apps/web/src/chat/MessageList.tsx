/**
 * The conversation: user messages as text, assistant messages as their parts in order (the
 * run's own part, `data-run`, at the end of its message). Keeps to the bottom while the answer
 * streams, unless the reader scrolled up.
 */
import type { ChatStatus } from 'ai';
import { type ReactNode, useLayoutEffect, useRef } from 'react';
import { type ApprovalAnswer, ApprovalPart, RunPart, StepPart, TextPart, ToolPart } from './ChatParts.tsx';
import type { ChatMessage, ChatPart, RunData } from './chat-api.ts';

export type OnApproval = (runId: string, stepId: string, approved: boolean, comment: string) => Promise<void>;

function partKey(part: ChatPart, index: number): string {
  if (part.type === 'dynamic-tool') return `tool:${part.toolCallId}`;
  if (part.type.startsWith('data-') && 'id' in part && part.id) return `${part.type}:${part.id}`;
  return `${part.type}:${index}`;
}

function renderPart(part: ChatPart, index: number, onApproval: OnApproval, runEnded: boolean): ReactNode {
  const key = partKey(part, index);
  switch (part.type) {
    case 'text':
      return part.text === '' ? null : <TextPart key={key} text={part.text} />;
    case 'dynamic-tool':
      return <ToolPart key={key} part={part} />;
    case 'data-step':
      return <StepPart key={key} data={part.data} />;
    case 'data-approval': {
      const { runId, stepId } = part.data;
      const answer: ApprovalAnswer = (approved, comment) => onApproval(runId, stepId, approved, comment);
      return <ApprovalPart key={key} data={part.data} onAnswer={answer} runEnded={runEnded} />;
    }
    default:
      // step-start, reasoning, sources, `data-run` (drawn last): nothing of their own here.
      return null;
  }
}

function Message({ message, onApproval }: { message: ChatMessage; onApproval: OnApproval }) {
  if (message.role === 'user') {
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return (
      <div className="chat-message user" data-testid="chat-message" data-role="user" data-message-id={message.id}>
        <div className="chat-bubble">{text}</div>
      </div>
    );
  }
  let run: RunData | undefined;
  for (const part of message.parts) if (part.type === 'data-run') run = part.data;
  const runEnded = run !== undefined && run.status !== 'running';
  const parts = message.parts.map((part, index) => renderPart(part, index, onApproval, runEnded)).filter(Boolean);
  return (
    <div
      className="chat-message assistant"
      data-testid="chat-message"
      data-role="assistant"
      data-message-id={message.id}
      data-run-id={run?.runId ?? message.metadata?.runId ?? undefined}
    >
      <div className="chat-avatar" aria-hidden="true">
        ≋
      </div>
      <div className="chat-parts">
        {parts.length > 0 ? parts : <span className="chat-typing muted">…</span>}
        {run ? <RunPart data={run} /> : null}
      </div>
    </div>
  );
}

export function MessageList({
  messages,
  status,
  onApproval,
  empty,
}: {
  messages: ChatMessage[];
  status: ChatStatus;
  onApproval: OnApproval;
  empty: ReactNode;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll again whenever the content changes
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [messages, status]);
  const waiting = status === 'submitted' && messages.at(-1)?.role === 'user';
  return (
    <div
      ref={scroller}
      className="chat-messages"
      role="log"
      aria-label="Messages"
      aria-busy={status === 'submitted' || status === 'streaming'}
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
      }}
    >
      <div className="chat-messages-inner">
        {messages.length === 0 ? empty : null}
        {messages.map((message) => (
          <Message key={message.id} message={message} onApproval={onApproval} />
        ))}
        {waiting ? (
          <div className="chat-message assistant pending">
            <div className="chat-avatar" aria-hidden="true">
              ≋
            </div>
            <span className="chat-typing muted">…</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}
