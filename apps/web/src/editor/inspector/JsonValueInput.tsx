/** A JSON value in a textarea: applied whenever it parses; the parse error is shown inline. */
import type { Json } from '@weft/engine';
import { useId, useRef, useState } from 'react';

export function JsonValueInput({
  label,
  value,
  onChange,
  rows = 4,
  hideLabel = false,
}: {
  label: string;
  value: Json | undefined;
  onChange(value: Json | undefined): void;
  rows?: number;
  hideLabel?: boolean;
}) {
  const id = useId();
  const format = (json: Json | undefined) => (json === undefined ? '' : JSON.stringify(json, null, 2));
  const [text, setText] = useState(() => format(value));
  const [error, setError] = useState<string | null>(null);
  const shown = useRef(value);
  if (value !== shown.current) {
    shown.current = value;
    setText(format(value));
    setError(null);
  }
  const apply = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setError(null);
      shown.current = undefined;
      onChange(undefined);
      return;
    }
    try {
      const parsed = JSON.parse(next) as Json;
      setError(null);
      shown.current = parsed;
      onChange(parsed);
    } catch (cause) {
      setError((cause as Error).message);
    }
  };
  return (
    <div className="field">
      {hideLabel ? null : <label htmlFor={id}>{label}</label>}
      <textarea
        id={id}
        className={`textarea mono${error ? ' invalid' : ''}`}
        aria-label={label}
        aria-invalid={error !== null}
        spellCheck={false}
        rows={rows}
        value={text}
        onChange={(event) => apply(event.target.value)}
      />
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
