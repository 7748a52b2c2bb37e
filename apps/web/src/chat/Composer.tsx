/**
 * The message box: Enter sends, Shift+Enter is a new line; Stop while an answer is on its way.
 * Above it the "Input" disclosure: the flow's other input properties, sent with every message.
 */
import { type FormEvent, useState } from 'react';
import type { ChatInputField } from './chat-input.ts';

export function InputDisclosure({
  fields,
  values,
  fromMessage,
  taken = true,
  onChange,
}: {
  fields: ChatInputField[];
  values: Record<string, string>;
  /** The field the server fills from the message when it is left empty, if any. */
  fromMessage: string | null;
  /** Whether the server takes run input from a chat client (the operator's choice); else none is sent. */
  taken?: boolean;
  onChange: (next: Record<string, string>) => void;
}) {
  // Open at first when something is required; then as the user leaves it.
  const [open, setOpen] = useState(() => fields.some((field) => field.required && !values[field.name]));
  if (fields.length === 0) return null;
  const missing = fields.filter((field) => field.required && !values[field.name] && field.name !== fromMessage).length;
  return (
    <details className="chat-input-disclosure" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Input{' '}
        <span className="muted small">
          {taken ? 'sent with every message' : 'not taken from a chat on this server'}
        </span>
        {taken && missing > 0 ? <span className="chat-input-missing small">{missing} required</span> : null}
      </summary>
      {taken ? null : (
        <p className="muted small">
          The run gets the conversation only: the operator lets a chat set run input with{' '}
          <span className="mono">weft serve --chat-client-overrides input</span>.
        </p>
      )}
      <div className="chat-input-fields">
        {fields.map((field) => {
          const id = `chat-input-${field.name}`;
          return (
            <div key={field.name} className="field">
              <label htmlFor={id}>
                {field.name}
                {field.required ? ' *' : ''}
                {field.type ? <span className="muted"> {field.type}</span> : null}
              </label>
              <input
                id={id}
                className="input"
                aria-label={`Input ${field.name}`}
                placeholder={field.name === fromMessage ? 'your message, when left empty' : field.description}
                title={field.description}
                value={values[field.name] ?? ''}
                disabled={!taken}
                onChange={(event) => onChange({ ...values, [field.name]: event.target.value })}
              />
            </div>
          );
        })}
      </div>
    </details>
  );
}

export function Composer({
  busy,
  onSend,
  onStop,
}: {
  /** An answer is on its way: Stop instead of Send. */
  busy: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const [text, setText] = useState('');
  const canSend = !busy && text.trim() !== '';
  const send = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    onSend(text.trim());
    setText('');
  };
  return (
    <form className="chat-composer" onSubmit={send}>
      <textarea
        className="textarea chat-composer-text"
        aria-label="Message"
        placeholder="Message the flow… (Enter sends, Shift+Enter for a new line)"
        rows={2}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            send();
          }
        }}
      />
      {busy ? (
        <button type="button" className="button danger" aria-label="Stop the run" onClick={onStop}>
          ■ Stop
        </button>
      ) : (
        <button type="submit" className="button primary" aria-label="Send message" disabled={!canSend}>
          Send
        </button>
      )}
    </form>
  );
}
