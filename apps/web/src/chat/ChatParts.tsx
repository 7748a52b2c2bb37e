/**
 * One part of an assistant message: text as it streamed, a tool call as a compact card, a step
 * as a status line, an approval with its buttons, the run's hand-off notice.
 */

import type { StepType } from '@weft/engine';
import type { DynamicToolUIPart } from 'ai';
import { useState } from 'react';
import { hrefOf } from '../components/route.ts';
import { stepInfo } from '../graph/step-catalog.ts';
import type { ApprovalData, RunData, StepData } from './chat-api.ts';

/** A value as one short line (the card's summary) — the full JSON is one click away. */
function oneLine(value: unknown, max = 120): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function TextPart({ text }: { text: string }) {
  return (
    <div className="chat-text" data-testid="chat-text">
      {text}
    </div>
  );
}

const TOOL_STATE: Record<string, { label: string; status: string }> = {
  'input-streaming': { label: 'calling…', status: 'running' },
  'input-available': { label: 'running…', status: 'running' },
  'approval-requested': { label: 'awaiting approval', status: 'waiting' },
  'approval-responded': { label: 'approval answered', status: 'running' },
  'output-available': { label: 'done', status: 'completed' },
  'output-error': { label: 'failed', status: 'failed' },
  'output-denied': { label: 'denied', status: 'failed' },
};

export function ToolPart({ part }: { part: DynamicToolUIPart }) {
  const state = TOOL_STATE[part.state] ?? { label: part.state, status: 'running' };
  const hasOutput = part.state === 'output-available';
  const hasError = part.state === 'output-error';
  return (
    <details
      className="chat-tool"
      data-testid="chat-tool"
      data-status={state.status}
      data-tool-call-id={part.toolCallId}
      data-state={part.state}
    >
      <summary>
        <span className="chat-tool-glyph" aria-hidden="true">
          ⚒
        </span>
        <span className="chat-tool-name mono">{part.toolName}</span>
        <span className="chat-tool-args mono muted">{oneLine(part.input, 80)}</span>
        <span className="chat-tool-state">{state.label}</span>
      </summary>
      <div className="chat-tool-body">
        <div className="chat-tool-label small muted">Input</div>
        <pre className="pre">{pretty(part.input)}</pre>
        {hasOutput ? (
          <>
            <div className="chat-tool-label small muted">Output</div>
            <pre className="pre">{pretty(part.output)}</pre>
          </>
        ) : null}
        {hasError ? (
          <>
            <div className="chat-tool-label small muted">Error</div>
            <pre className="pre error">{part.errorText}</pre>
          </>
        ) : null}
        <div className="small muted mono">{part.toolCallId}</div>
      </div>
    </details>
  );
}

const STEP_GLYPH: Record<StepData['status'], string> = {
  running: '◌',
  completed: '✓',
  failed: '✕',
  waiting: '◷',
};

export function StepPart({ data }: { data: StepData }) {
  return (
    <div className="chat-step" data-testid="chat-step" data-step-id={data.stepId} data-status={data.status}>
      <span className="chat-step-glyph" aria-hidden="true">
        {STEP_GLYPH[data.status] ?? '•'}
      </span>
      <span className="chat-step-type muted" title={data.stepType}>
        {stepInfo(data.stepType as StepType)?.icon ?? ''} {data.stepType}
      </span>
      <span className="mono">{data.stepId}</span>
      <span className="muted">{data.status === 'running' ? 'running…' : data.status}</span>
      {data.summary ? <span className="chat-step-summary muted">{data.summary}</span> : null}
    </div>
  );
}

export type ApprovalAnswer = (approved: boolean, comment: string) => Promise<void>;

export function ApprovalPart({
  data,
  onAnswer,
  runEnded,
}: {
  data: ApprovalData;
  onAnswer: ApprovalAnswer;
  /** The run ended without a decision (cancelled, failed): nothing left to answer. */
  runEnded: boolean;
}) {
  const [comment, setComment] = useState('');
  const [sending, setSending] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pending = data.status === 'pending';
  const decided = !pending || sending !== null || runEnded;
  const answer = async (approved: boolean) => {
    setSending(approved);
    setError(null);
    try {
      await onAnswer(approved, comment.trim());
    } catch (failure) {
      setSending(null);
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  // The server's word once it has one; until then what was just sent.
  const shown =
    pending && runEnded
      ? 'not answered'
      : pending && sending !== null
        ? sending
          ? 'approving…'
          : 'rejecting…'
        : data.status;
  return (
    <section
      className="chat-approval"
      data-testid="chat-approval"
      data-step-id={data.stepId}
      data-status={data.status}
      aria-label={`Approval ${data.stepId}`}
    >
      <div className="chat-approval-head">
        <span className="chat-approval-title">{pending && !runEnded ? 'Approval needed' : 'Approval'}</span>
        <span className="mono muted small">{data.stepId}</span>
        <span className="chat-approval-status" data-testid="chat-approval-status">
          {shown}
        </span>
      </div>
      <p className="chat-approval-prompt">{data.prompt}</p>
      <div className="chat-approval-actions">
        <input
          className="input small"
          aria-label="Approval comment"
          placeholder="Comment (optional)"
          value={pending ? comment : (data.comment ?? '')}
          disabled={decided}
          onChange={(event) => setComment(event.target.value)}
        />
        <button type="button" className="button approve" disabled={decided} onClick={() => answer(true)}>
          Approve
        </button>
        <button type="button" className="button reject" disabled={decided} onClick={() => answer(false)}>
          Reject
        </button>
      </div>
      {pending ? null : (
        <p className="chat-approval-decision small muted" data-testid="chat-approval-decision">
          {data.status === 'timed-out' ? 'Timed out' : data.status === 'approved' ? 'Approved' : 'Rejected'}
          {data.by ? ` by ${data.by}` : ''}
          {data.comment ? ` — “${data.comment}”` : ''}
        </p>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

/** The run behind the answer: a link to its run view, and where it was handed off. */
export function RunPart({ data }: { data: RunData }) {
  return (
    <div className="chat-run small muted" data-testid="chat-run" data-run-id={data.runId} data-status={data.status}>
      {data.handoff ? (
        <p className="chat-handoff" data-testid="chat-handoff">
          ⇢ continued on {data.handoff.to} at <span className="mono">{data.handoff.checkpoint}</span> (started on{' '}
          {data.handoff.from})
        </p>
      ) : null}
      <a className="mono" href={hrefOf({ screen: 'run', runId: data.runId })} aria-label={`Open run ${data.runId}`}>
        {data.runId}
      </a>{' '}
      · {data.status}
      {data.backend ? ` · ${data.backend}` : ''}
    </div>
  );
}
