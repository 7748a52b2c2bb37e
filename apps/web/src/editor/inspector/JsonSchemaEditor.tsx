/** A JSON Schema as a list of properties (name, type, required, description), or raw JSON. */
import type { Json } from '@weft/engine';
import { useState } from 'react';
import { JsonValueInput } from './JsonValueInput.tsx';
import {
  freshName,
  isPropertyListSchema,
  PROPERTY_TYPES,
  type PropertyType,
  propertiesToSchema,
  type SchemaProperty,
  schemaToProperties,
} from './json-schema.ts';

export function JsonSchemaEditor({
  label,
  value,
  onChange,
}: {
  label: string;
  value: Json | undefined;
  onChange(value: Record<string, Json> | undefined): void;
}) {
  const listable = isPropertyListSchema(value);
  const [raw, setRaw] = useState(!listable);
  const properties = schemaToProperties(value);
  const write = (next: SchemaProperty[]) => onChange(propertiesToSchema(next, value));
  const update = (index: number, patch: Partial<SchemaProperty>) =>
    write(properties.map((prop, at) => (at === index ? { ...prop, ...patch } : prop)));

  return (
    <fieldset className="form-group">
      <legend>{label}</legend>
      <label className="inline-check">
        <input
          type="checkbox"
          checked={raw || !listable}
          disabled={!listable}
          onChange={(e) => setRaw(e.target.checked)}
        />
        Raw JSON
      </label>
      {raw || !listable ? (
        <JsonValueInput
          label={`${label} (JSON)`}
          rows={8}
          value={value}
          onChange={(next) =>
            onChange(next !== null && typeof next === 'object' && !Array.isArray(next) ? next : undefined)
          }
        />
      ) : (
        <>
          {properties.length === 0 ? <p className="muted small">No properties yet.</p> : null}
          {properties.map((prop, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional (a name can change).
            <div className="schema-row schema-prop" key={index}>
              <input
                className="input mono"
                aria-label={`${label} property ${index + 1} name`}
                value={prop.name}
                onChange={(event) => update(index, { name: event.target.value })}
              />
              <select
                className="input"
                aria-label={`${label} ${prop.name || `property ${index + 1}`} type`}
                value={prop.type}
                onChange={(event) => update(index, { type: event.target.value as PropertyType })}
              >
                {PROPERTY_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
              <label className="inline-check">
                <input
                  type="checkbox"
                  checked={prop.required}
                  onChange={(event) => update(index, { required: event.target.checked })}
                />
                required
              </label>
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${label} property ${prop.name || index + 1}`}
                onClick={() => write(properties.filter((_, at) => at !== index))}
              >
                ×
              </button>
              <input
                className="input small schema-description"
                aria-label={`${label} ${prop.name || `property ${index + 1}`} description`}
                placeholder="description"
                value={prop.description}
                onChange={(event) => update(index, { description: event.target.value })}
              />
            </div>
          ))}
          <div className="row-actions">
            <button
              type="button"
              className="button ghost"
              onClick={() =>
                write([
                  ...properties,
                  { name: freshName(properties), type: 'string', required: false, description: '', rest: {} },
                ])
              }
            >
              + Add property
            </button>
            {value !== undefined ? (
              <button type="button" className="button ghost" onClick={() => onChange(undefined)}>
                Clear schema
              </button>
            ) : null}
          </div>
        </>
      )}
    </fieldset>
  );
}
