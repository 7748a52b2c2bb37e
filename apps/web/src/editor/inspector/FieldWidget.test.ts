/**
 * A checkbox whose schema declares a default shows it while the field is absent (http's
 * `idempotencyKey` is on unless set to false), and unchecking it writes `false`.
 */
import type { Json } from '@weft/engine';
import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { type FieldProps, FieldWidget } from './FieldWidget.tsx';
import { type FieldSpec, stepFields } from './schema-fields.ts';

const idempotencyKey = stepFields('http').find((field) => field.name === 'idempotencyKey') as FieldSpec;
const plain: FieldSpec = { name: 'flag', kind: 'checkbox', required: false, advanced: false };

function props(spec: FieldSpec, value: Json | undefined, onChange: FieldProps['onChange'] = () => {}): FieldProps {
  return { spec, value, onChange, suggestions: [] };
}

const isChecked = (spec: FieldSpec, value: Json | undefined) =>
  /<input[^>]*type="checkbox"[^>]*checked=""/.test(renderToString(createElement(FieldWidget, props(spec, value))));

/** The checkbox element FieldWidget draws (rendered inside a component, so its hooks run). */
function checkboxOf(
  widgetProps: FieldProps,
): ReactElement<{ onChange(event: { target: { checked: boolean } }): void }> {
  let drawn: ReactElement | undefined;
  renderToString(
    createElement(() => {
      drawn = FieldWidget(widgetProps) as ReactElement;
      return drawn;
    }),
  );
  const find = (node: unknown): ReactElement | undefined => {
    if (Array.isArray(node)) return node.map(find).find(Boolean);
    if (node === null || typeof node !== 'object' || !('props' in node)) return undefined;
    const element = node as ReactElement<{ type?: string; children?: unknown }>;
    return element.props.type === 'checkbox' ? element : find(element.props.children);
  };
  const checkbox = find(drawn);
  if (!checkbox) throw new Error('no checkbox drawn');
  return checkbox as ReturnType<typeof checkboxOf>;
}

describe('a checkbox field', () => {
  it('shows the schema default while the field is absent, and the value once set', () => {
    expect(isChecked(idempotencyKey, undefined)).toBe(true);
    expect(isChecked(idempotencyKey, false)).toBe(false);
    expect(isChecked(idempotencyKey, true)).toBe(true);
    // Without a default, absent is unchecked.
    expect(isChecked(plain, undefined)).toBe(false);
  });

  it('writes false when a defaulted-on box is unchecked, true when checked', () => {
    const written: (Json | undefined)[] = [];
    const record = (value: Json | undefined) => {
      written.push(value);
    };
    checkboxOf(props(idempotencyKey, undefined, record)).props.onChange({ target: { checked: false } });
    checkboxOf(props(idempotencyKey, false, record)).props.onChange({ target: { checked: true } });
    expect(written).toEqual([false, true]);
  });
});
