/**
 * A TypeScript type from a JSON Schema, for the flow's input. Covers what flows use (objects,
 * arrays, scalars, enums, const, unions, descriptions); anything else is `any`, never wrong.
 */
import { jsonLiteral, propertyKey } from './values.ts';

type Schema = Record<string, unknown>;

/** `interface Name { … }` for an object schema, else `type Name = …`. */
export function typeDeclaration(name: string, schema: Schema | undefined): string {
  if (schema !== undefined && isObjectSchema(schema)) return `interface ${name} ${objectType(schema)}`;
  return `type ${name} = ${schema === undefined ? 'any' : schemaType(schema)};`;
}

export function schemaType(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema === false ? 'never' : 'any';
  const s = schema as Schema;
  if ('const' in s) return jsonLiteral(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(jsonLiteral).join(' | ') || 'never';
  const union = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as
    | unknown[]
    | undefined;
  if (union) return union.map((member) => parenthesize(schemaType(member))).join(' | ') || 'never';
  if (Array.isArray(s.type)) return s.type.map((type) => schemaType({ ...s, type })).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return s.items === undefined ? 'any[]' : `${parenthesize(schemaType(s.items))}[]`;
    case 'object':
      return isObjectSchema(s) ? objectType(s) : 'Record<string, any>';
    default:
      return 'any';
  }
}

function isObjectSchema(s: Schema): boolean {
  return s.type === 'object' && typeof s.properties === 'object' && s.properties !== null;
}

function objectType(s: Schema): string {
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const lines = Object.entries(s.properties as Record<string, unknown>).map(([key, property]) => {
    const description = (property as Schema | null)?.description;
    const doc = typeof description === 'string' ? `/** ${description.replaceAll('*/', '* /')} */\n` : '';
    return `${doc}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${schemaType(property)};`;
  });
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    // `any`: a narrower index type would have to cover every declared property too.
    lines.push('[key: string]: any;');
  }
  return `{\n${lines.join('\n')}\n}`;
}

function parenthesize(type: string): string {
  return type.includes('|') || type.includes('&') ? `(${type})` : type;
}
