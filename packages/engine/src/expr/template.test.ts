import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import type { Json } from '../json.ts';
import { compileTemplate, type ExprScope } from './index.ts';

const scope: ExprScope = {
  input: { name: 'Ann', n: 3, ok: true, none: null, list: [1, 'a'], obj: { k: 'v' }, text: 'a "quoted" }} text' },
  steps: Object.assign(Object.create(null) as Record<string, { output: Json }>, {
    draft: { output: { text: 'Draft' } },
  }),
};
const render = (text: string): string => compileTemplate(text).render(scope);

describe('templates', () => {
  it.each<[string, string]>([
    ['Hello {{ input.name }}!', 'Hello Ann!'],
    ['{{input.name}}', 'Ann'],
    ['no interpolation', 'no interpolation'],
    ['', ''],
    ['{{ input.n }} + {{ input.n * 2 }}', '3 + 6'],
    ['{{ input.ok }}/{{ !input.ok }}', 'true/false'],
    ['[{{ input.none }}][{{ input.missing }}]', '[][]'],
    ['{{ input.list }}', '[1,"a"]'],
    ['{{ input.obj }}', '{"k":"v"}'],
    ['{{ [input.missing] }}', '[null]'],
    ['{{ input.text }}', 'a "quoted" }} text'],
    ['{{ { a: 1 } }}', '{"a":1}'],
    ["{{ {a: '}}'} }}", '{"a":"}}"}'],
    ['{{ "{{" }}', '{{'],
    ["{{ '}' }}", '}'],
    ['{{ steps.draft.output.text }} then {{ upper(steps.draft.output.text) }}', 'Draft then DRAFT'],
    ['a {{ input.n }}} b', 'a 3} b'],
    ['\\{{ input.name }} is literal', '{{ input.name }} is literal'],
    ['mixed \\{{ x }} and {{ input.name }}', 'mixed {{ x }} and Ann'],
    ['single { braces } stay', 'single { braces } stay'],
    ['{{ 1 / 0 }}', 'Infinity'],
  ])('%j → %j', (text, expected) => {
    expect(render(text)).toBe(expected);
  });

  it('lists its parts, roots and step references', () => {
    const t = compileTemplate(
      'Hi {{ input.name }}, see {{ steps.draft.output.text }} and {{ steps.draft.output.text }}',
    );
    expect(t.parts.map((p) => (typeof p === 'string' ? p : `[${p.source}]`))).toEqual([
      'Hi ',
      '[input.name]',
      ', see ',
      '[steps.draft.output.text]',
      ' and ',
      '[steps.draft.output.text]',
    ]);
    expect([...t.roots].sort()).toEqual(['input', 'steps']);
    expect(t.stepRefs).toEqual([{ stepId: 'draft', path: ['output', 'text'] }]);
  });

  it('is cached by text', () => {
    expect(compileTemplate('x {{ input.n }}')).toBe(compileTemplate('x {{ input.n }}'));
  });

  it.each<[string, RegExp, number]>([
    ['Hello {{ input.name', /'\{\{' at 6 is not closed with '\}\}'/, 6],
    ['ok {{ input.n }} then {{ ', /'\{\{' at 22 is not closed/, 22],
    ["{{ 'unterminated }}", /not closed/, 0],
    ['a {{ }} b', /'\{\{ \}\}' at 2 is empty/, 2],
    ['a {{ process }}', /unknown name 'process'/, 5],
    ['a {{ input.n + }}', /unexpected end of expression/, 14],
    ['{{ =input.n }}', /without '='/, 3],
    ['{{ input.n } }}', /unexpected '\}'/, 11],
  ])('%j fails to compile: %s', (text, message, position) => {
    let error: unknown;
    try {
      compileTemplate(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as ExpressionError).message).toMatch(message);
    expect((error as ExpressionError).position).toBe(position);
    expect((error as ExpressionError).source).toBe(text);
  });

  it('reports evaluation errors with a position into the template', () => {
    const text = 'Dear {{ input.name }}, {{ input.missing.x }}';
    let error: unknown;
    try {
      render(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as ExpressionError).message).toBe("cannot read 'x' of undefined (input.missing)");
    expect((error as ExpressionError).source).toBe(text);
    expect((error as ExpressionError).position).toBe(text.indexOf('x }}'));
  });
});
