/**
 * The property-list view of an object JSON Schema, and back. Anything the list cannot show
 * (nested `properties`, `items`, `enum`, extra keywords) is kept as it was: the list edits
 * name/type/required/description and leaves every other keyword of a property alone.
 */
import type { Json } from '@weft/engine';

export const PROPERTY_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export interface SchemaProperty {
  name: string;
  type: PropertyType;
  required: boolean;
  description: string;
  /** The property's other keywords, kept verbatim. */
  rest: Record<string, Json>;
}

type JsonObject = Record<string, Json>;

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function schemaToProperties(schema: Json | undefined): SchemaProperty[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(schema.properties).map(([name, raw]) => {
    const prop = isObject(raw) ? raw : {};
    const { type, description, ...rest } = prop;
    return {
      name,
      type: PROPERTY_TYPES.includes(type as PropertyType) ? (type as PropertyType) : 'string',
      required: required.includes(name),
      description: typeof description === 'string' ? description : '',
      rest,
    };
  });
}

/** Writes the properties into `base` (its other keywords kept); `type: object` is set. */
export function propertiesToSchema(properties: readonly SchemaProperty[], base: Json | undefined): JsonObject {
  const { properties: _p, required: _r, ...others } = isObject(base) ? base : {};
  const props: JsonObject = {};
  for (const prop of properties) {
    if (prop.name === '') continue;
    props[prop.name] = {
      type: prop.type,
      ...(prop.description === '' ? {} : { description: prop.description }),
      ...prop.rest,
    };
  }
  const required = properties.filter((prop) => prop.required && prop.name !== '').map((prop) => prop.name);
  return { ...others, type: 'object', properties: props, ...(required.length > 0 ? { required } : {}) };
}

/** Whether the list view can show the schema (an object schema or nothing yet). */
export function isPropertyListSchema(schema: Json | undefined): boolean {
  if (schema === undefined) return true;
  if (!isObject(schema)) return false;
  return (
    (schema.type === undefined || schema.type === 'object') &&
    (schema.properties === undefined || isObject(schema.properties))
  );
}

/** A fresh property name not yet used: field1, field2, … */
export function freshName(properties: readonly SchemaProperty[]): string {
  const used = new Set(properties.map((prop) => prop.name));
  let n = properties.length + 1;
  while (used.has(`field${n}`)) n++;
  return `field${n}`;
}
