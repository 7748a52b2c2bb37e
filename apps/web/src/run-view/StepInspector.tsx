/**
 * The selected run step at the scrubbed moment: status, attempts with each failed attempt's
 * error, latency, tokens in and out, cost; what it was given (the messages a model turn sent,
 * a tool's args, the http request), what it streamed and returned; for an agent loop the
 * conversation. Buttons move the scrubber to the step's start or end; a spawn (or a flow used as
 * a tool) opens its child run. Every value can be copied as JSON.
 */
import { type RunEvent, type StepState, stepOf, type TokenUsage } from '@weft/engine';
import { StatusBadge } from '../editor/nodes/StatusBadge.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { JsonValue } from './JsonValue.tsx';
import { runHref } from './permalink.ts';
import { Transcript } from './Transcript.tsx';
import { messagesSentTo } from './transcript.ts';
import { costOfStep, describeCost, useRunCosts } from './use-costs.ts';

/** The retries of `stepId` up to the scrubbed event, each with its error. */
function attemptsOf(events: readonly RunEvent[], stepId: string, seq: number) {
  const out: { attempt: number; message: string; delayMs: number }[] = [];
  for (const event of events) {
    if (event.seq > seq) break;
    if (event.type === 'step.retrying' && event.stepId === stepId)
      out.push({ attempt: event.attempt, message: event.error.message, delayMs: event.delayMs });
  }
  return out;
}

/** The seq of the event that started and the one that ended `stepId`. */
function boundsOf(events: readonly RunEvent[], stepId: string): { start?: number; end?: number } {
  const bounds: { start?: number; end?: number } = {};
  for (const event of events) {
    if (!('stepId' in event) || event.stepId !== stepId) continue;
    if (event.type === 'step.started') bounds.start = event.seq;
    else if (event.type === 'step.completed' || event.type === 'step.failed') bounds.end = event.seq;
  }
  return bounds;
}

/** Tokens of the step, or of its model turns (an llm step). */
function tokensOf(steps: Record<string, StepState>, order: readonly string[], step: StepState): TokenUsage | null {
  if (step.usage) return step.usage;
  let total: TokenUsage | null = null;
  for (const id of order) {
    const child = Object.hasOwn(steps, id) ? steps[id] : undefined;
    if (!child?.usage || child.parentId !== step.stepId) continue;
    total ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    total.inputTokens += child.usage.inputTokens;
    total.outputTokens += child.usage.outputTokens;
    total.totalTokens += child.usage.totalTokens;
  }
  return total;
}

export function StepInspector() {
  const store = useEditorStoreApi();
  const stepId = useEditor((state) => state.selectedStepId);
  const run = useEditor((state) => state.run);
  const costs = useRunCosts();
  if (!run || stepId === null) return null;
  const { view } = run;
  const events = store.getState().runTape()?.events ?? [];
  const step = stepOf(view, stepId);
  const moment = view.seq;
  const head = (
    <h3 className="panel-subtitle step-inspector-title">
      <span className="mono">{stepId}</span> {step ? <StatusBadge status={step.status} /> : null}
      {step?.reused ? (
        <span className="reused-badge" title="Answered from the source run, not executed">
          ↺ reused
        </span>
      ) : null}
    </h3>
  );
  if (!step) {
    const group = view.order.filter((id) => id.startsWith(`${stepId}/`));
    return (
      <section className="step-inspector" aria-label="Step at this moment" data-testid="step-inspector">
        {head}
        {group.length > 0 ? (
          <ul className="step-inspector-group small">
            {group.map((id) => (
              <li key={id}>
                <button
                  type="button"
                  className="transcript-link mono small"
                  onClick={() => store.getState().selectRunStep(id)}
                >
                  {id}
                </button>{' '}
                <StatusBadge status={stepOf(view, id)?.status ?? null} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted small">Not started yet at this moment (event {moment}).</p>
        )}
      </section>
    );
  }
  const bounds = boundsOf(events, stepId);
  const attempts = attemptsOf(events, stepId, moment);
  const now = events[run.cursor ?? events.length - 1]?.at ?? null;
  const latency =
    step.durationMs ?? (step.startedAt !== null && now !== null ? Math.max(0, now - step.startedAt) : null);
  const tokens = tokensOf(view.steps, view.order, step);
  const cost = costs ? costOfStep(costs, stepId) : null;
  const sent = step.stepType === 'model-turn' ? messagesSentTo(view, stepId) : null;
  const agent =
    step.stepType === 'llm'
      ? stepId
      : step.parentId !== null && stepOf(view, step.parentId)?.stepType === 'llm'
        ? step.parentId
        : null;
  return (
    <section
      className="step-inspector"
      aria-label="Step at this moment"
      data-testid="step-inspector"
      data-status={step.status}
    >
      {head}
      <div className="run-step-actions">
        <button
          type="button"
          className="button ghost small"
          aria-label="Go to the step's start"
          disabled={bounds.start === undefined}
          onClick={() => bounds.start !== undefined && store.getState().scrubToSeq(bounds.start)}
        >
          ⇤ start
        </button>
        <button
          type="button"
          className="button ghost small"
          aria-label="Go to the step's end"
          disabled={bounds.end === undefined}
          onClick={() => bounds.end !== undefined && store.getState().scrubToSeq(bounds.end)}
        >
          end ⇥
        </button>
        {step.childRunId ? (
          <a
            className="button small"
            href={runHref({ runId: step.childRunId })}
            aria-label={`Open child run ${step.childRunId}`}
          >
            Open child run ↗
          </a>
        ) : null}
      </div>
      <dl className="facts small">
        <dt>type</dt>
        <dd className="mono">{step.stepType}</dd>
        <dt>attempts</dt>
        <dd>{step.attempts}</dd>
        <dt>latency</dt>
        <dd>{latency === null ? '—' : `${formatDuration(latency)}${step.endedAt === null ? ' so far' : ''}`}</dd>
        {tokens ? (
          <>
            <dt>tokens</dt>
            <dd data-testid="step-tokens">
              {tokens.inputTokens} in · {tokens.outputTokens} out
            </dd>
          </>
        ) : null}
        {cost ? (
          <>
            <dt>cost</dt>
            <dd data-testid="step-cost" title={cost.model}>
              {describeCost(cost)}
            </dd>
          </>
        ) : null}
      </dl>
      {attempts.length > 0 ? (
        <ol className="attempts small" aria-label="Failed attempts">
          {attempts.map((attempt) => (
            <li key={attempt.attempt}>
              attempt {attempt.attempt} failed: <span className="error-text">{attempt.message}</span>{' '}
              <span className="muted">(retried after {formatDuration(attempt.delayMs)})</span>
            </li>
          ))}
        </ol>
      ) : null}
      {step.error && step.status === 'failed' ? <JsonValue label="Error" value={step.error} className="error" /> : null}
      {step.approval ? <JsonValue label="Approval" value={step.approval} /> : null}
      {sent ? (
        <JsonValue label="Messages sent" value={sent} />
      ) : step.input !== null ? (
        <JsonValue label="Input" value={step.input} />
      ) : null}
      {step.text && step.output === null ? <JsonValue label="Streamed so far" value={step.text} /> : null}
      {step.output !== null ? <JsonValue label="Output" value={step.output} /> : null}
      {agent ? <Transcript stepId={agent} /> : null}
    </section>
  );
}
