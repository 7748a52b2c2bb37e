/**
 * An agent loop's conversation at the scrubbed moment, as chat: system, user, each assistant
 * turn (streaming while it runs) with the tool calls it asked for, and each call's result. A
 * turn or call links to its bar on the timeline (selecting it there and on the canvas).
 */
import type { ReactNode } from 'react';
import { StatusBadge } from '../editor/nodes/StatusBadge.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { CopyJson } from './JsonValue.tsx';
import { type TranscriptEntry, transcriptOf } from './transcript.ts';

function Entry({ entry, link }: { entry: TranscriptEntry; link: (stepId: string, text: string) => ReactNode }) {
  switch (entry.kind) {
    case 'system':
      return (
        <li className="chat chat-system">
          <span className="chat-role">system</span>
          <p>{entry.text}</p>
        </li>
      );
    case 'message':
      return (
        <li className={`chat chat-${entry.role}`}>
          <span className="chat-role">{entry.role}</span>
          <p>{entry.text}</p>
        </li>
      );
    case 'turn':
      return (
        <li className="chat chat-assistant" data-testid={`transcript-${entry.stepId}`} data-status={entry.status}>
          <span className="chat-role">
            assistant {link(entry.stepId, `turn ${entry.turn}`)} <StatusBadge status={entry.status} />
            {entry.attempts > 1 ? <span className="muted small"> attempt {entry.attempts}</span> : null}
          </span>
          {entry.text ? (
            <p>
              {entry.text}
              {entry.streaming ? <span className="chat-caret" data-testid="streaming" title="streaming" /> : null}
            </p>
          ) : null}
          {entry.calls.length > 0 ? (
            <ul className="chat-calls">
              {entry.calls.map((call) => (
                <li key={call.id || call.tool} className="mono small">
                  → {call.tool}({JSON.stringify(call.args)})
                </li>
              ))}
            </ul>
          ) : null}
          {entry.error ? <p className="field-error small">{entry.error}</p> : null}
        </li>
      );
    case 'tool':
      return (
        <li className="chat chat-tool" data-testid={`transcript-${entry.stepId}`} data-status={entry.status}>
          <span className="chat-role">
            tool {link(entry.stepId, entry.tool)} <StatusBadge status={entry.status} />
          </span>
          <pre className="pre small">args: {JSON.stringify(entry.args, null, 2)}</pre>
          {entry.error ? (
            <pre className="pre error small">{entry.error}</pre>
          ) : entry.status === 'completed' ? (
            <pre className="pre small">result: {JSON.stringify(entry.result, null, 2)}</pre>
          ) : (
            <p className="muted small">no result yet</p>
          )}
        </li>
      );
  }
}

function keyOf(entry: TranscriptEntry): string {
  return entry.kind === 'system' || entry.kind === 'message' ? entry.id : entry.stepId;
}

export function Transcript({ stepId }: { stepId: string }) {
  const store = useEditorStoreApi();
  const view = useEditor((state) => state.run?.view ?? null);
  const selected = useEditor((state) => state.selectedStepId);
  if (!view) return null;
  const entries = transcriptOf(view, stepId);
  if (entries.length === 0) return null;
  const link = (id: string, text: string) => (
    <button
      type="button"
      className={`transcript-link mono small${selected === id ? ' current' : ''}`}
      aria-label={`Show ${id} on the timeline`}
      onClick={() => store.getState().selectRunStep(id)}
    >
      {text}
    </button>
  );
  return (
    <section className="transcript" aria-label="Conversation" data-testid="transcript">
      <div className="json-value-head small">
        <h4 className="panel-subtitle">Conversation</h4>
        <CopyJson value={entries} label="conversation" />
      </div>
      <ol className="transcript-list">
        {entries.map((entry) => (
          <Entry key={keyOf(entry)} entry={entry} link={link} />
        ))}
      </ol>
    </section>
  );
}
