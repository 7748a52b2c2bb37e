/**
 * Checks a run's input against the flow's `input` JSON Schema before anything runs, so a bad
 * input is a clear error naming the field, not a confusing failure three steps in.
 *
 * The validator is @cfworker/json-schema: maintained, passes the official test suite for drafts
 * 4 to 2020-12 (`$ref`, `oneOf`, `pattern`, formats, …) and, unlike Ajv, needs no code
 * generation, so it runs anywhere the engine does (Temporal's workflow sandbox and browsers
 * included). Its errors are turned into Weft's own: the input path (`input.customer.email`)
 * and a short message. A user-written `pattern` could backtrack for minutes on a crafted input
 * (JavaScript regexes cannot be interrupted), so validation refuses any pattern redos-detector
 * cannot show to be safe within a small budget (see `inputSchemaIssues`).
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { isSafePattern } from 'redos-detector';
import { isJsonObject, type Json } from '../json.ts';
import { checkJsonShape, formatLongPath, MAX_INPUT_DEPTH } from '../json-shape.ts';
import type { JsonPath } from '../validate/issues.ts';

export interface InputIssue {
  /** Where in the input, e.g. "input.customer.email". */
  path: string;
  message: string;
}

const MAX_ISSUES = 50;
const DRAFT = '2020-12';

// Compiling dereferences the whole schema; flows are immutable per version, so cache by object.
const validators = new WeakMap<object, Validator>();

export function checkInput(schema: Record<string, unknown> | undefined, input: Json): InputIssue[] {
  const tooDeep = checkJsonShape(input, MAX_INPUT_DEPTH);
  if (tooDeep) return [{ path: inputPath(tooDeep.path), message: tooDeep.message }];
  if (!schema) return [];
  let result: { valid: boolean; errors: OutputUnit[] };
  try {
    result = validatorFor(schema).validate(input);
  } catch (error) {
    // Only a schema that validation let through but cannot be used (say, a $ref it cannot resolve).
    return [{ path: 'input', message: `the flow's input schema cannot be used: ${firstLine(error)}` }];
  }
  if (result.valid) return [];
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  for (const unit of result.errors) {
    const issue = toIssue(unit, schema, input);
    if (!issue) continue;
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues;
}

/** Problems with the input schema itself, for validation: where in the schema and why. */
export function inputSchemaIssues(schema: Record<string, unknown>): { path: JsonPath; message: string }[] {
  const issues: { path: JsonPath; message: string }[] = [];
  const visit = (node: unknown, path: JsonPath): void => {
    if (Array.isArray(node)) {
      node.forEach((child, index) => {
        visit(child, [...path, index]);
      });
      return;
    }
    if (!isJsonObject(node as Json)) return;
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string') checkPattern(record.pattern, [...path, 'pattern'], issues);
    if (isJsonObject(record.patternProperties as Json)) {
      for (const key of Object.keys(record.patternProperties as object)) {
        checkPattern(key, [...path, 'patternProperties', key], issues);
      }
    }
    for (const [key, child] of Object.entries(record)) {
      // `const`, `enum`, `default` and `examples` hold data, not schemas.
      if (key !== 'const' && key !== 'enum' && key !== 'default' && key !== 'examples') visit(child, [...path, key]);
    }
  };
  visit(schema, []);
  if (issues.length > 0) return issues;
  try {
    validatorFor(schema).validate(null);
  } catch (error) {
    issues.push({ path: [], message: `cannot be used: ${firstLine(error)}` });
  }
  return issues;
}

function checkPattern(pattern: string, path: JsonPath, issues: { path: JsonPath; message: string }[]): void {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    issues.push({ path, message: `is not a valid regular expression: ${firstLine(error)}` });
    return;
  }
  if (!patternIsSafe(pattern)) {
    issues.push({
      path,
      message:
        'could backtrack for a very long time on some inputs (overlapping repetition such as (a+)+ or \\S+\\.\\S+); ' +
        "simplify it, or use a 'format' such as email",
    });
  }
}

const safePatterns = new Map<string, boolean>();

/** redos-detector's verdict, cached: it explores backtracking paths, up to ~250 ms for a bad one. */
function patternIsSafe(pattern: string): boolean {
  let safe = safePatterns.get(pattern);
  if (safe === undefined) {
    safe = isSafePattern(pattern, { unicode: true, maxSteps: 3000, timeout: 250 }).safe;
    if (safePatterns.size >= 1000) safePatterns.clear();
    safePatterns.set(pattern, safe);
  }
  return safe;
}

function validatorFor(schema: Record<string, unknown>): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, DRAFT, false);
    validators.set(schema, validator);
  }
  return validator;
}

/** One validator error as a Weft input issue, or undefined for errors that only wrap others. */
function toIssue(unit: OutputUnit, schema: Record<string, unknown>, input: Json): InputIssue | undefined {
  // An error inside one alternative of anyOf/oneOf says nothing by itself: the alternative's
  // own error ("matches none of …") does.
  if (/\/(anyOf|oneOf)\/\d+\//.test(unit.keywordLocation)) return undefined;
  const segments = pointerSegments(unit.instanceLocation);
  const value = valueAt(input, segments);
  const path = inputPath(segments, input);
  const keywordValue = schemaAt(schema, pointerSegments(unit.keywordLocation));
  switch (unit.keyword) {
    case 'properties':
    case 'items':
    case 'prefixItems':
    case 'additionalProperties':
    case '$ref':
    case 'allOf':
    case 'dependentSchemas':
    case 'unevaluatedProperties':
    case 'unevaluatedItems':
      return undefined;
    case 'false':
      return { path, message: 'is not an allowed field' };
    case 'required': {
      const name = /required property "(.*)"/.exec(unit.error)?.[1] ?? '';
      return { path: childPath(path, name), message: 'is required' };
    }
    case 'type': {
      const expected = Array.isArray(keywordValue) ? keywordValue.map(String) : [String(keywordValue)];
      return { path, message: `must be ${expected.join(' or ')}, got ${describe(value)}` };
    }
    case 'enum':
      return Array.isArray(keywordValue)
        ? { path, message: `must be one of ${keywordValue.map((option) => JSON.stringify(option)).join(', ')}` }
        : { path, message: unit.error };
    case 'const':
      return { path, message: `must be ${JSON.stringify(keywordValue)}` };
    case 'minLength':
      return { path, message: `must be at least ${keywordValue} characters` };
    case 'maxLength':
      return { path, message: `must be at most ${keywordValue} characters` };
    case 'minimum':
      return { path, message: `must be ≥ ${keywordValue}` };
    case 'maximum':
      return { path, message: `must be ≤ ${keywordValue}` };
    case 'minItems':
      return { path, message: `must have at least ${keywordValue} items` };
    case 'maxItems':
      return { path, message: `must have at most ${keywordValue} items` };
    case 'pattern':
      return { path, message: `must match the pattern ${JSON.stringify(keywordValue)}` };
    case 'anyOf':
    case 'oneOf':
      return { path, message: `matches none of the allowed shapes (${unit.keyword})` };
    default:
      return { path, message: unit.error };
  }
}

/** `#/customer/tags/1` → ['customer', 'tags', '1'] (JSON Pointer, URI-encoded by the validator). */
export function pointerSegments(pointer: string): string[] {
  const body = pointer.replace(/^#\/?/, '');
  if (body === '') return [];
  return body.split('/').map((segment) => {
    let text = segment;
    try {
      text = decodeURIComponent(segment);
    } catch {
      // Not percent-encoded after all: keep it as written.
    }
    return text.replaceAll('~1', '/').replaceAll('~0', '~');
  });
}

function valueAt(input: Json, segments: readonly (string | number)[]): Json | undefined {
  let node: Json | undefined = input;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isJsonObject(node ?? null)) {
      const record = node as Record<string, Json>;
      node = Object.hasOwn(record, segment) ? record[segment] : undefined;
    } else return undefined;
  }
  return node;
}

function schemaAt(schema: unknown, segments: readonly string[]): unknown {
  let node = schema;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** `input.customer.tags[1]`: array positions as indices, odd keys quoted. */
function inputPath(segments: readonly (string | number)[], input?: Json): string {
  if (segments.length > 12) {
    const tail = formatLongPath(segments);
    return tail.startsWith('[') ? `input${tail}` : `input.${tail}`;
  }
  let path = 'input';
  let node: Json | undefined = input;
  for (const segment of segments) {
    if (typeof segment === 'number' || (Array.isArray(node) && /^\d+$/.test(segment))) path += `[${segment}]`;
    else path = childPath(path, segment);
    node = node === undefined ? undefined : valueAt(node, [segment]);
  }
  return path;
}

function describe(value: Json | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

function childPath(path: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
