/**
 * A TypeScript type from a JSON Schema, for the flow's input. Covers what flows use (objects,
 * arrays, scalars, enums, const, unions, descriptions); anything else is `any`, never wrong.
 */
import { docComment, propertyKey } from './escape.ts';
import { jsonLiteral } from './values.ts';

type Schema = Record<string, unknown>;

/** `interface Name { … }` for an object schema, else `type Name = …`. */
export function typeDeclaration(name: string, schema: Schema | undefined): string {
  if (schema !== undefined && isObjectSchema(schema)) return `interface ${name} ${objectType(schema)}`;
  return `type ${name} = ${schema === undefined ? 'any' : schemaType(schema)};`;
}

export function schemaType(schema: unknown): string {
  return typeOf(schema).text;
}

/** The type, and whether it is a union (which needs parentheses inside an array or union type). */
function typeOf(schema: unknown): { text: string; union: boolean } {
  const single = (text: string) => ({ text, union: false });
  const union = (members: { text: string; union: boolean }[]) =>
    members.length === 0
      ? single('never')
      : members.length === 1
        ? members[0]!
        : { text: members.map((m) => m.text).join(' | '), union: true };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return single(schema === false ? 'never' : 'any');
  const s = schema as Schema;
  if ('const' in s) return single(jsonLiteral(s.const));
  if (Array.isArray(s.enum)) return union(s.enum.map((value) => single(jsonLiteral(value))));
  const members = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as
    | unknown[]
    | undefined;
  if (members) return union(members.map((member) => single(parenthesize(typeOf(member)))));
  if (Array.isArray(s.type)) return union(s.type.map((type) => typeOf({ ...s, type })));
  switch (s.type) {
    case 'string':
      return single('string');
    case 'number':
    case 'integer':
      return single('number');
    case 'boolean':
      return single('boolean');
    case 'null':
      return single('null');
    case 'array':
      return single(s.items === undefined ? 'any[]' : `${parenthesize(typeOf(s.items))}[]`);
    case 'object':
      return single(isObjectSchema(s) ? objectType(s) : 'Record<string, any>');
    default:
      return single('any');
  }
}

function isObjectSchema(s: Schema): boolean {
  return s.type === 'object' && typeof s.properties === 'object' && s.properties !== null;
}

function objectType(s: Schema): string {
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const lines = Object.entries(s.properties as Record<string, unknown>).map(([key, property]) => {
    const description = (property as Schema | null)?.description;
    const doc = typeof description === 'string' ? `${docComment(description)}\n` : '';
    return `${doc}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${schemaType(property)};`;
  });
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    // `any`: a narrower index type would have to cover every declared property too.
    lines.push('[key: string]: any;');
  }
  return `{\n${lines.join('\n')}\n}`;
}

/** Decided by the schema, not by the text: a string literal type may hold a `|`. */
function parenthesize(type: { text: string; union: boolean }): string {
  return type.union ? `(${type.text})` : type.text;
}
