/**
 * One spelling per meaning, for comparing a flow with its round trip. Import writes every
 * expression in the canonical spelling (engine parser → printer), and TS export writes the
 * IR's `==`/`!=` against a non-null literal or an operator's result as `===`/`!==` (identical
 * in the IR, and what keeps JavaScript from coercing), so those come back as `===`/`!==`.
 * Nothing else changes: step ids, names, order, configs, literals, templates' text, code
 * sources and tools are exact.
 *
 * In a value position (a transform's `value`, `args`, a spawn's `input`, http `headers`/`body`,
 * the flow's `output`) an expression that is an array, object or literal is the same value as
 * that structure with its parts as expressions: `"=[1, input.x]"` means `[1, "=input.x"]`. TS
 * export prints both as `[1, input.x]`, which imports as the structure, so both sides are
 * compared unfolded.
 */
import { compileExpression, compileTemplate, type ExprNode, type Flow, isExpression, isTemplate } from '@weft/engine';
import { isStrictOperand, printExpression } from '../emit/expression.ts';

/** Fields that hold a value (evaluated structurally), not one expression or template. */
const VALUE_FIELDS = new Set(['value', 'args', 'input', 'headers', 'body']);

/** Fields whose strings are not expressions or templates. */
const VERBATIM = new Set([
  'id',
  'type',
  'name',
  'source',
  'schema',
  'retry',
  'timeout',
  'model',
  'tools',
  'maxSteps',
  'concurrency',
  'as',
  'maxIterations',
  'method',
  'duration',
  'flow',
  'onTimeout',
]);

export function canonicalFlow(flow: Flow): Omit<Flow, 'ui'> {
  const { ui: _ui, ...rest } = flow;
  return {
    ...rest,
    steps: flow.steps.map(canonicalStep) as Flow['steps'],
    ...(flow.output === undefined ? {} : { output: canonicalValue(unfold(flow.output)) }),
  };
}

function canonicalStep(step: Record<string, unknown> | Flow['steps'][number]): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(step)) {
    if (VERBATIM.has(key)) out[key] = value;
    else if ((key === 'steps' || key === 'else') && Array.isArray(value)) out[key] = value.map(canonicalStep);
    else if (key === 'cases' && Array.isArray(value))
      out[key] = value.map((c: { when: string; steps: unknown[] }) => ({
        when: canonicalValue(c.when),
        steps: c.steps.map((s) => canonicalStep(s as Record<string, unknown>)),
      }));
    else if (key === 'branches')
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown[]>).map(([name, list]) => [
          name,
          list.map((s) => canonicalStep(s as Record<string, unknown>)),
        ]),
      );
    else if (VALUE_FIELDS.has(key)) out[key] = canonicalValue(unfold(value));
    else out[key] = canonicalValue(value);
  }
  return out;
}

/** A value with every array/object/literal expression in it spelled as structure. */
export function unfold(value: unknown): unknown {
  if (typeof value === 'string')
    return isExpression(value) ? unfoldNode(compileExpression(value).ast, value.slice(1)) : value;
  if (Array.isArray(value)) return value.map(unfold);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, unfold(v)]));
  return value;
}

function unfoldNode(node: ExprNode, source: string): unknown {
  switch (node.type) {
    case 'Array':
      return node.elements.map((element) => unfoldNode(element, source));
    case 'Object':
      return Object.fromEntries(node.properties.map((p) => [p.key, unfoldNode(p.value, source)]));
    case 'Literal':
      // A string that reads as an expression or template stays an expression.
      if (typeof node.value !== 'string' || (!isExpression(node.value) && !isTemplate(node.value))) return node.value;
      break;
  }
  return `=${source.slice(node.start, node.end)}`;
}

export function canonicalValue(value: unknown): unknown {
  if (typeof value === 'string') {
    if (isExpression(value)) return `=${canonicalExpression(value)}`;
    if (!isTemplate(value)) return value;
    return compileTemplate(value)
      .parts.map((part) =>
        typeof part === 'string' ? part.replaceAll('{{', '\\{{') : `{{ ${canonicalExpression(part.source)} }}`,
      )
      .join('');
  }
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, canonicalValue(v)]));
  return value;
}

export function canonicalExpression(source: string): string {
  return printExpression(strictAgainstLiterals(structuredClone(compileExpression(source).ast)), { dialect: 'ir' });
}

function strictAgainstLiterals(node: ExprNode): ExprNode {
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else visit(value);
  }
  if (node.type === 'Binary' && (node.operator === '==' || node.operator === '!=')) {
    const nullSide = (side: ExprNode) => side.type === 'Literal' && side.value === null;
    if ((isStrictOperand(node.left) || isStrictOperand(node.right)) && !nullSide(node.left) && !nullSide(node.right))
      node.operator = node.operator === '==' ? '===' : '!==';
  }
  return node;
}

function visit(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if ('type' in value && typeof (value as { type: unknown }).type === 'string')
    strictAgainstLiterals(value as ExprNode);
  else if ('value' in value) visit((value as { value: unknown }).value); // object properties
}
