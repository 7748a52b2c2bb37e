/**
 * `neutralFlow(flow)`: the same flow with every free text replaced by a placeholder — names,
 * descriptions, literal strings (in values, templates and expressions), template text, object
 * keys in values and expressions, tool descriptions, JSON Schema property names, descriptions,
 * enums and consts. Everything with meaning stays: step ids and types, expressions' structure,
 * which strings are expressions, templates or literals, header names, tool names, code sources.
 *
 * Exporting a flow and its neutral twin must give modules of the same code shape
 * (typescript-ast.ts `codeShape`): free text may change the data of the module, never its code.
 *
 * What the placeholders keep, because export decides by it: an empty text stays empty, a
 * template stays a template (`P\{{` when it has no interpolation), a key that is an array index
 * (`"0"`, `"12"`) stays as it is (JavaScript orders those keys first), other keys become
 * `k0`, `k1`, … in order, and `required` follows the property names it lists.
 */
import { compileExpression, compileTemplate, type ExprNode, type Flow, isExpression, isTemplate } from '@weft/engine';
import { printExpression } from '../emit/expression.ts';

const PLACEHOLDER = 'P';

export function neutralFlow(flow: Flow): Flow {
  const out: Record<string, unknown> = { ...flow, name: PLACEHOLDER, steps: flow.steps.map(neutralStep) };
  if (flow.description !== undefined) out.description = plainText(flow.description);
  if (flow.input !== undefined) out.input = neutralSchema(flow.input);
  if (flow.output !== undefined) out.output = neutralValue(flow.output);
  if (flow.tools !== undefined) {
    out.tools = Object.fromEntries(
      Object.entries(flow.tools).map(([name, tool]) => {
        const neutral: Record<string, unknown> = {
          ...tool,
          description: PLACEHOLDER,
          parameters: neutralSchema(tool.parameters),
        };
        if (tool.http !== undefined) neutral.http = neutralHttp(tool.http);
        return [name, neutral];
      }),
    );
  }
  return out as Flow;
}

/** Step fields by what they hold; any other field (ids, durations, code, models, …) stays. */
const TEXT_FIELDS = new Set(['system', 'prompt', 'message']);
const EXPRESSION_FIELDS = new Set(['items', 'messages', 'while']);
const VALUE_FIELDS = new Set(['value', 'args', 'input', 'body']);
const STEP_LISTS = new Set(['steps', 'else']);

function neutralStep(step: Record<string, unknown> | Flow['steps'][number]): unknown {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(step)) {
    if (field === 'name') out[field] = plainText(value as string);
    else if (TEXT_FIELDS.has(field)) out[field] = neutralText(value as string);
    else if (EXPRESSION_FIELDS.has(field)) out[field] = neutralText(value as string);
    else if (VALUE_FIELDS.has(field)) out[field] = neutralValue(value);
    else if (field === 'schema') out[field] = neutralSchema(value as Record<string, unknown>);
    else if (STEP_LISTS.has(field)) out[field] = (value as unknown[]).map((s) => neutralStep(s as Step));
    else if (field === 'cases') {
      out[field] = (value as { when: string; steps: unknown[] }[]).map((c) => ({
        when: neutralText(c.when),
        steps: c.steps.map((s) => neutralStep(s as Step)),
      }));
    } else if (field === 'branches') {
      out[field] = Object.fromEntries(
        Object.entries(value as Record<string, unknown[]>).map(([name, list]) => [
          name,
          list.map((s) => neutralStep(s as Step)),
        ]),
      );
    } else if (field === 'url' || field === 'headers') Object.assign(out, neutralHttp({ [field]: value }));
    else out[field] = value;
  }
  return out;
}

type Step = Record<string, unknown>;

/** An http request's url and header values (header names stay: they decide what is a secret). */
function neutralHttp(http: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...http };
  if (typeof http.url === 'string') out.url = neutralText(http.url);
  if (http.headers !== undefined) {
    out.headers = Object.fromEntries(
      Object.entries(http.headers as Record<string, string>).map(([name, value]) => [name, neutralText(value)]),
    );
  }
  if (http.body !== undefined) out.body = neutralValue(http.body);
  return out;
}

/** Text that is only ever text (a name, a description). */
function plainText(text: string): string {
  return text === '' ? '' : PLACEHOLDER;
}

/** A string field: an expression, a template or a literal, each kept what it is. */
export function neutralText(text: string): string {
  if (isExpression(text)) return `=${neutralExpression(text.slice(1))}`;
  if (!isTemplate(text)) return plainText(text);
  const parts = compileTemplate(text).parts;
  if (parts.every((part) => typeof part === 'string')) return `${PLACEHOLDER}\\{{`;
  return parts
    .map((part) => (typeof part === 'string' ? PLACEHOLDER : `{{ ${neutralExpression(part.source)} }}`))
    .join('');
}

function neutralValue(value: unknown): unknown {
  if (typeof value === 'string') return neutralText(value);
  if (Array.isArray(value)) return value.map(neutralValue);
  if (typeof value === 'object' && value !== null) {
    const keys = neutralKeys(Object.keys(value));
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [keys.get(key)!, neutralValue(v)]));
  }
  return value;
}

/** Keys in order → their placeholders: array indexes as they are, the rest `k0`, `k1`, …. */
function neutralKeys(keys: string[]): Map<string, string> {
  return new Map(keys.map((key, index) => [key, isArrayIndex(key) ? key : `k${index}`]));
}

function isArrayIndex(key: string): boolean {
  const number = Number(key);
  return String(number) === key && Number.isInteger(number) && number >= 0 && number <= 2 ** 32 - 2;
}

/** A JSON Schema as flows write them: keywords stay, names and documentation go. */
function neutralSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = neutralKeys(Object.keys((schema.properties as object | undefined) ?? {}));
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, unknown>>).map(([name, property]) => [
          names.get(name)!,
          neutralSchema(property),
        ]),
      );
    } else if (keyword === 'required') {
      out.required = (value as string[]).map((name) => names.get(name) ?? PLACEHOLDER);
    } else if (keyword === 'items') out.items = neutralSchema(value as Record<string, unknown>);
    else if (keyword === 'anyOf' || keyword === 'oneOf') {
      out[keyword] = (value as Record<string, unknown>[]).map(neutralSchema);
    } else if (keyword === 'description' || keyword === 'title') out[keyword] = PLACEHOLDER;
    else if (keyword === 'enum') out.enum = (value as unknown[]).map(neutralJson);
    else if (keyword === 'const') out.const = neutralJson(value);
    else out[keyword] = value;
  }
  return out;
}

/** Plain JSON data: strings and keys replaced. */
function neutralJson(value: unknown): unknown {
  if (typeof value === 'string') return PLACEHOLDER;
  if (Array.isArray(value)) return value.map(neutralJson);
  if (typeof value === 'object' && value !== null) {
    const keys = neutralKeys(Object.keys(value));
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [keys.get(key)!, neutralJson(v)]));
  }
  return value;
}

/** An expression's source with its string literals and object keys replaced, printed canonically. */
function neutralExpression(source: string): string {
  const ast = structuredClone(compileExpression(source).ast);
  const visit = (node: ExprNode): void => {
    if (node.type === 'Literal' && typeof node.value === 'string') node.value = node.value === '' ? '' : PLACEHOLDER;
    if (node.type === 'Object') {
      const keys = neutralKeys(node.properties.map((p) => p.key));
      for (const property of node.properties) property.key = keys.get(property.key)!;
    }
    for (const child of Object.values(node)) {
      if (Array.isArray(child)) for (const item of child) visitAny(item);
      else visitAny(child);
    }
  };
  const visitAny = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if ('type' in value && typeof (value as { type: unknown }).type === 'string') visit(value as ExprNode);
    else if ('value' in value) visitAny((value as { value: unknown }).value); // an object's property
  };
  visit(ast);
  return printExpression(ast, { dialect: 'ir' });
}
