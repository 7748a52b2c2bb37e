/** The flow's input JSON Schema as simple form fields, when it is a flat object of scalars. */
import type { Json } from '@weft/engine';

export interface InputField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  required: boolean;
  description?: string;
  enum?: string[];
}

const isObject = (value: unknown): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The fields of a flat object schema of strings/numbers/booleans, else null (use the JSON textarea). */
export function inputFields(schema: Record<string, Json> | undefined): InputField[] | null {
  if (schema?.type !== 'object' || !isObject(schema.properties)) return null;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const fields: InputField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) return null;
    const type = property.type;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean') return null;
    const field: InputField = { name, type, required: required.has(name) };
    if (typeof property.description === 'string') field.description = property.description;
    if (Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string'))
      field.enum = property.enum as string[];
    fields.push(field);
  }
  return fields.length > 0 ? fields : null;
}

/** A starting value per field: the JSON the form edits. */
export function emptyInput(fields: InputField[]): Record<string, Json> {
  const value: Record<string, Json> = {};
  for (const field of fields)
    value[field.name] = field.type === 'boolean' ? false : field.type === 'string' ? (field.enum?.[0] ?? '') : 0;
  return value;
}
