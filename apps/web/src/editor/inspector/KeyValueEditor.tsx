/** A record whose values are expressions (args, input, headers): one row per key. */
import type { Json } from '@weft/engine';
import { ExpressionField } from './ExpressionField.tsx';
import type { Suggestion } from './expression.ts';
import { JsonValueInput } from './JsonValueInput.tsx';

export function KeyValueEditor({
  label,
  value,
  onChange,
  suggestions,
}: {
  label: string;
  value: Record<string, Json> | undefined;
  onChange(value: Record<string, Json> | undefined): void;
  suggestions: readonly Suggestion[];
}) {
  const entries = Object.entries(value ?? {});
  const write = (next: [string, Json][]) => onChange(Object.fromEntries(next));
  const rename = (index: number, key: string) => {
    if (entries.some(([other], at) => at !== index && other === key)) return;
    write(entries.map((entry, at) => (at === index ? [key, entry[1]] : entry)));
  };
  const setValue = (index: number, next: Json | undefined) =>
    write(entries.map((entry, at) => (at === index ? [entry[0], next ?? null] : entry)));
  const add = () => {
    let n = entries.length + 1;
    while (entries.some(([key]) => key === `key${n}`)) n++;
    write([...entries, [`key${n}`, '']]);
  };
  return (
    <fieldset className="form-group">
      <legend>{label}</legend>
      {entries.length === 0 ? <p className="muted small">No entries.</p> : null}
      {entries.map(([key, entry], index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional (a key can be renamed).
        <div className="kv-row" key={index}>
          <input
            className="input mono"
            aria-label={`${label} key ${index + 1}`}
            value={key}
            onChange={(event) => rename(index, event.target.value)}
          />
          {typeof entry === 'string' ? (
            <ExpressionField
              label={`${label} ${key || `entry ${index + 1}`} value`}
              hideLabel
              value={entry}
              onChange={(next) => setValue(index, next)}
              suggestions={suggestions}
            />
          ) : (
            <JsonValueInput
              label={`${label} ${key || `entry ${index + 1}`} value (JSON)`}
              hideLabel
              rows={2}
              value={entry}
              onChange={(next) => setValue(index, next)}
            />
          )}
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove ${label} ${key || `entry ${index + 1}`}`}
            onClick={() => write(entries.filter((_, at) => at !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="button ghost" onClick={add}>
        + Add {label.toLowerCase()} entry
      </button>
    </fieldset>
  );
}
