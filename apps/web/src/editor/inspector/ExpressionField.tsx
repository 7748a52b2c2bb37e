/**
 * A text field for an `=expr` or a `{{ template }}`: validated as you type (the parse error is
 * shown inline with its position) and with completions of what is in scope at the cursor.
 */
import { useId, useMemo, useRef, useState } from 'react';
import { applyCompletion, checkExpression, completions, describePosition, type Suggestion } from './expression.ts';

export interface ExpressionFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  suggestions: readonly Suggestion[];
  exprOnly?: boolean | undefined;
  multiline?: boolean | undefined;
  required?: boolean | undefined;
  /** Hide the visible label (the control keeps `label` as its accessible name). */
  hideLabel?: boolean;
  placeholder?: string;
}

const MODE_HINT = { expression: 'expression', template: 'template', literal: 'text' } as const;

export function ExpressionField(props: ExpressionFieldProps) {
  const { label, value, onChange, suggestions, exprOnly, multiline, required, hideLabel, placeholder } = props;
  const id = useId();
  const errorId = `${id}-error`;
  const listId = `${id}-list`;
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const check = useMemo(() => checkExpression(value, exprOnly, suggestions), [value, exprOnly, suggestions]);
  const open = cursor !== null && !dismissed;
  const menu = useMemo(
    () => (open ? completions(value, cursor, suggestions) : { start: 0, items: [] as Suggestion[] }),
    [open, value, cursor, suggestions],
  );
  const showMenu = menu.items.length > 0;

  const pick = (suggestion: Suggestion) => {
    if (cursor === null) return;
    const next = applyCompletion(value, cursor, suggestion.label);
    onChange(next.text);
    setCursor(next.cursor);
    setActive(0);
    requestAnimationFrame(() => ref.current?.setSelectionRange(next.cursor, next.cursor));
  };
  const track = (element: HTMLInputElement | HTMLTextAreaElement) => setCursor(element.selectionStart ?? null);

  const common = {
    id,
    ref,
    className: `${multiline ? 'textarea' : 'input'} mono${check.error ? ' invalid' : ''}`,
    value,
    spellCheck: false,
    placeholder: placeholder ?? (exprOnly ? '=input.items' : 'text, {{ input.x }} or =expression'),
    'aria-label': label,
    'aria-invalid': check.error !== null,
    'aria-describedby': check.error ? errorId : undefined,
    'aria-required': required || undefined,
    role: 'combobox',
    'aria-autocomplete': 'list' as const,
    'aria-expanded': showMenu,
    'aria-controls': listId,
    'aria-activedescendant': showMenu ? `${listId}-${active}` : undefined,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      onChange(event.target.value);
      setDismissed(false);
      setActive(0);
      track(event.target);
    },
    onSelect: (event: React.SyntheticEvent<HTMLInputElement | HTMLTextAreaElement>) => track(event.currentTarget),
    onFocus: (event: React.FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => track(event.currentTarget),
    onBlur: () => setCursor(null),
    onKeyDown: (event: React.KeyboardEvent) => {
      if (!showMenu) return;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((index) => (index + step + menu.items.length) % menu.items.length);
      } else if (event.key === 'Enter' || event.key === 'Tab') {
        const item = menu.items[Math.min(active, menu.items.length - 1)];
        if (item) {
          event.preventDefault();
          pick(item);
        }
      } else if (event.key === 'Escape') {
        event.preventDefault();
        setDismissed(true);
      }
    },
  };

  return (
    <div className={`field expr-field${hideLabel ? ' compact' : ''}`}>
      {hideLabel ? null : (
        <label htmlFor={id}>
          {label}
          {required ? ' *' : ''}
          <span className="expr-mode muted">{MODE_HINT[check.mode]}</span>
        </label>
      )}
      {multiline ? <textarea rows={3} {...common} /> : <input {...common} />}
      {showMenu ? (
        <div className="expr-suggestions" id={listId} role="listbox" aria-label={`Suggestions for ${label}`}>
          {menu.items.map((item, index) => (
            <div
              key={item.label}
              id={`${listId}-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                pick(item);
              }}
            >
              <span>{item.label}</span>
              <span className="detail">{item.detail}</span>
            </div>
          ))}
        </div>
      ) : null}
      {check.error ? (
        <p className="field-error" id={errorId} role="alert">
          {check.error.message}
          {check.error.position !== null ? ` (at ${describePosition(value, check.error.position)})` : ''}
        </p>
      ) : null}
    </div>
  );
}
