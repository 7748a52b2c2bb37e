/** The run input as a form, for a flow whose input schema is a flat object of scalars. */
import type { Json } from '@weft/engine';
import type { InputField } from './input-form.ts';

export function InputForm({
  fields,
  value,
  onChange,
}: {
  fields: InputField[];
  value: Record<string, Json>;
  onChange: (next: Record<string, Json>) => void;
}) {
  return (
    <div className="input-form">
      {fields.map((field) => {
        const id = `run-input-${field.name}`;
        const current = value[field.name];
        const label = `${field.name}${field.required ? ' *' : ''}`;
        if (field.type === 'boolean') {
          return (
            <label key={field.name} className="field checkbox" htmlFor={id}>
              <input
                id={id}
                type="checkbox"
                aria-label={`Input ${field.name}`}
                checked={current === true}
                onChange={(event) => onChange({ ...value, [field.name]: event.target.checked })}
              />{' '}
              {label}
            </label>
          );
        }
        if (field.enum) {
          return (
            <div key={field.name} className="field">
              <label htmlFor={id}>{label}</label>
              <select
                id={id}
                className="input"
                aria-label={`Input ${field.name}`}
                value={typeof current === 'string' ? current : ''}
                onChange={(event) => onChange({ ...value, [field.name]: event.target.value })}
              >
                {field.enum.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            </div>
          );
        }
        const numeric = field.type === 'number' || field.type === 'integer';
        return (
          <div key={field.name} className="field">
            <label htmlFor={id}>{label}</label>
            <input
              id={id}
              className="input"
              type={numeric ? 'number' : 'text'}
              step={field.type === 'integer' ? 1 : 'any'}
              aria-label={`Input ${field.name}`}
              title={field.description}
              placeholder={field.description}
              value={typeof current === 'string' || typeof current === 'number' ? String(current) : ''}
              onChange={(event) =>
                onChange({
                  ...value,
                  [field.name]: numeric
                    ? event.target.value === ''
                      ? 0
                      : Number(event.target.value)
                    : event.target.value,
                })
              }
            />
          </div>
        );
      })}
    </div>
  );
}
