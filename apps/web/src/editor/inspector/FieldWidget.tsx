/** One form field: the widget its FieldSpec asks for. */
import { type Json, ownEntry } from '@weft/engine';
import { useId } from 'react';
import { ModelField } from '../ModelField.tsx';
import { ExpressionField } from './ExpressionField.tsx';
import type { Suggestion } from './expression.ts';
import { JsonSchemaEditor } from './JsonSchemaEditor.tsx';
import { JsonValueInput } from './JsonValueInput.tsx';
import { KeyValueEditor } from './KeyValueEditor.tsx';
import { LazyCodeEditor as CodeEditor } from './LazyCodeEditor.tsx';
import { type FieldSpec, retryFields } from './schema-fields.ts';

export interface FieldProps {
  spec: FieldSpec;
  value: Json | undefined;
  /** `undefined` removes the field from the config. */
  onChange(value: Json | undefined): void;
  suggestions: readonly Suggestion[];
  /** Names offered for string lists (the flow's tools). */
  listOptions?: readonly string[];
}

/** "maxSteps" → "Max steps". */
/** Field names that read badly as words. */
const LABELS: Record<string, string> = { as: 'Item name (as)' };
/** What an empty text field means, where that is not obvious. */
const PLACEHOLDERS: Record<string, string> = { as: 'item — the name expressions in the body read it by' };

export function humanize(name: string): string {
  const fixed = ownEntry(LABELS, name);
  if (fixed !== undefined) return fixed;
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A checkbox shows its value, or where the field is absent what absent means (the schema's default). */
export function checkboxShows(spec: FieldSpec, value: Json | undefined): boolean {
  return (value === undefined ? spec.default : value) === true;
}

const isRecord = (value: Json | undefined): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function FieldWidget({ spec, value, onChange, suggestions, listOptions }: FieldProps) {
  const id = useId();
  const label = humanize(spec.name);
  const star = spec.required ? ' *' : '';
  const text = typeof value === 'string' ? value : '';
  // Optional text fields drop out of the config when emptied; required ones stay (and fail validation).
  const setText = (next: string) => onChange(next === '' && !spec.required ? undefined : next);

  switch (spec.kind) {
    case 'model':
      return <ModelField value={text} onChange={onChange} />;
    case 'code':
      return <CodeEditor label={`${label} (JavaScript)`} value={text} onChange={onChange} />;
    case 'json-schema':
      return <JsonSchemaEditor label={label} value={value} onChange={onChange} />;
    case 'key-value':
      return (
        <KeyValueEditor
          label={label}
          value={isRecord(value) ? value : undefined}
          onChange={onChange}
          suggestions={suggestions}
        />
      );
    case 'expression':
      return (
        <ExpressionField
          label={label}
          value={text}
          onChange={setText}
          suggestions={suggestions}
          exprOnly={spec.exprOnly}
          multiline={spec.multiline}
          required={spec.required}
        />
      );
    case 'value':
      return <ValueField label={label} value={value} onChange={onChange} suggestions={suggestions} />;
    case 'cases':
      return <CasesField value={value} onChange={onChange} suggestions={suggestions} />;
    case 'retry':
      return <RetryField value={value} onChange={onChange} />;
    case 'number':
      return (
        <div className="field">
          <label htmlFor={id}>
            {label}
            {star}
          </label>
          <input
            id={id}
            type="number"
            className="input"
            step={1}
            min={spec.min}
            max={spec.max}
            aria-label={label}
            value={typeof value === 'number' ? value : ''}
            onChange={(event) => {
              const next = event.target.valueAsNumber;
              onChange(Number.isNaN(next) ? undefined : next);
            }}
          />
        </div>
      );
    case 'checkbox':
      return (
        <label className="inline-check field">
          <input
            type="checkbox"
            checked={checkboxShows(spec, value)}
            onChange={(event) => onChange(event.target.checked)}
          />
          {label}
        </label>
      );
    case 'select':
      return (
        <div className="field">
          <label htmlFor={id}>
            {label}
            {star}
          </label>
          <select
            id={id}
            className="input"
            aria-label={label}
            value={text}
            onChange={(event) => setText(event.target.value)}
          >
            {spec.required ? null : <option value="">(default)</option>}
            {(spec.options ?? []).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
      );
    case 'string-list': {
      const items = Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
      return (
        <div className="field">
          <label htmlFor={id}>
            {label}
            {star} <span className="muted small">(comma-separated)</span>
          </label>
          <input
            id={id}
            className="input mono"
            aria-label={label}
            list={listOptions && listOptions.length > 0 ? `${id}-options` : undefined}
            value={items.join(', ')}
            onChange={(event) => {
              const next = event.target.value
                .split(',')
                .map((item) => item.trim())
                .filter((item, index, all) => item !== '' || index === all.length - 1);
              const clean = next.filter((item) => item !== '');
              onChange(clean.length === 0 && !spec.required ? undefined : clean);
            }}
          />
          {listOptions && listOptions.length > 0 ? (
            <>
              <datalist id={`${id}-options`}>
                {listOptions.map((option) => (
                  <option key={option} value={option} />
                ))}
              </datalist>
              <p className="muted small">Flow tools: {listOptions.join(', ')}</p>
            </>
          ) : null}
        </div>
      );
    }
    case 'duration':
    case 'text':
      return (
        <div className="field">
          <label htmlFor={id}>
            {label}
            {star}
          </label>
          <input
            id={id}
            className={`input${spec.kind === 'duration' ? ' mono' : ''}`}
            aria-label={label}
            placeholder={spec.kind === 'duration' ? 'e.g. 30s, 5m, 1h' : ownEntry(PLACEHOLDERS, spec.name)}
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
      );
    case 'json':
      return <JsonValueInput label={`${label} (JSON)`} value={value} onChange={onChange} />;
  }
}

/** An expression, or a JSON value whose strings are expressions (transform.value, http.body, flow output). */
export function ValueField({
  label,
  value,
  onChange,
  suggestions,
}: {
  label: string;
  value: Json | undefined;
  onChange(value: Json | undefined): void;
  suggestions: readonly Suggestion[];
}) {
  const id = useId();
  const asJson = value !== undefined && typeof value !== 'string';
  return (
    <div className="field">
      <div className="row-actions">
        <label htmlFor={id} className="inline-check">
          {label} as
        </label>
        <select
          id={id}
          className="input small"
          aria-label={`${label} kind`}
          value={asJson ? 'json' : 'expression'}
          onChange={(event) => onChange(event.target.value === 'json' ? {} : '=')}
        >
          <option value="expression">expression / template</option>
          <option value="json">JSON (strings may be expressions)</option>
        </select>
      </div>
      {asJson ? (
        <JsonValueInput label={`${label} (JSON)`} hideLabel value={value} onChange={onChange} />
      ) : (
        <ExpressionField
          label={label}
          hideLabel
          value={typeof value === 'string' ? value : ''}
          onChange={(next) => onChange(next === '' ? undefined : next)}
          suggestions={suggestions}
        />
      )}
    </div>
  );
}

/** branch.cases: each case's `when`; its arm is the `case-N` handle on the canvas. */
function CasesField({
  value,
  onChange,
  suggestions,
}: {
  value: Json | undefined;
  onChange(value: Json | undefined): void;
  suggestions: readonly Suggestion[];
}) {
  const cases = Array.isArray(value) ? value.map((item) => (isRecord(item) ? item : {})) : [];
  const write = (next: Record<string, Json>[]) => onChange(next);
  return (
    <fieldset className="form-group">
      <legend>Cases * (first truthy `when` runs; arms are the case handles on the canvas)</legend>
      {cases.map((branchCase, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: cases are positional (handle case-N).
        <div className="kv-row" key={index}>
          <span className="mono small">case-{index}</span>
          <ExpressionField
            label={`Case ${index} when`}
            hideLabel
            exprOnly
            required
            value={typeof branchCase.when === 'string' ? branchCase.when : ''}
            onChange={(when) => write(cases.map((item, at) => (at === index ? { ...item, when } : item)))}
            suggestions={suggestions}
          />
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove case ${index}`}
            disabled={cases.length <= 1}
            onClick={() => write(cases.filter((_, at) => at !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="button ghost" onClick={() => write([...cases, { when: '=true' }])}>
        + Add case
      </button>
    </fieldset>
  );
}

/** retry: off, or maxAttempts/backoff/initialDelay/maxDelay. */
function RetryField({ value, onChange }: { value: Json | undefined; onChange(value: Json | undefined): void }) {
  const retry = isRecord(value) ? value : undefined;
  return (
    <fieldset className="form-group">
      <legend>Retry</legend>
      <label className="inline-check">
        <input
          type="checkbox"
          checked={retry !== undefined}
          onChange={(event) => onChange(event.target.checked ? { maxAttempts: 3 } : undefined)}
        />
        Retry on failure
      </label>
      {retry
        ? retryFields().map((spec) => (
            <FieldWidget
              key={spec.name}
              spec={spec}
              value={retry[spec.name]}
              suggestions={[]}
              onChange={(next) => {
                const { [spec.name]: _old, ...rest } = retry;
                onChange(next === undefined ? rest : { ...rest, [spec.name]: next });
              }}
            />
          ))
        : null}
    </fieldset>
  );
}
