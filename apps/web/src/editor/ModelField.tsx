/** The model of an `llm` step, with the server's providers offered (`mock:` marked as mock). */
import { useId } from 'react';
import { useModels } from './use-models.ts';

export function ModelField({ value, onChange }: { value: string; onChange(value: string): void }) {
  const id = useId();
  const models = useModels();
  const provider = value.includes(':') ? value.slice(0, value.indexOf(':')) : '';
  const known = models.find((model) => model.id === provider);
  return (
    <div className="field">
      <label htmlFor={id}>Model * {provider === 'mock' ? <span className="mock-pill">mock</span> : null}</label>
      <input
        id={id}
        className="input mono"
        list={`${id}-models`}
        aria-label="Model"
        placeholder="provider:model, e.g. mock:echo"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      <datalist id={`${id}-models`}>
        <option value="mock:echo">mock — echoes the last user message</option>
        {models
          .filter((model) => model.configured && model.id !== 'mock')
          .map((model) => (
            <option key={model.id} value={`${model.id}:`}>
              {model.label}
            </option>
          ))}
      </datalist>
      {known && !known.configured ? (
        <p className="field-error" role="alert">
          {known.label} is not configured on this server.
        </p>
      ) : null}
      <p className="muted small">
        {models
          .map(
            (model) =>
              `${model.id === 'mock' ? 'mock (offline)' : model.label}${model.configured ? '' : ' — not configured'}`,
          )
          .join(' · ')}
      </p>
    </div>
  );
}
