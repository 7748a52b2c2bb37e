/** Plain JSON: everything that crosses the host boundary, the journal and run events is this. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * An entry of a record keyed by names a flow author or a model chose (step ids, tool names):
 * own entries only, so `toString` or `constructor` never finds a member of Object.prototype.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns whatever a step produced into plain JSON (undefined → null, drops functions),
 * so the journal stores exactly what a replay will hand back.
 */
export function toJson(value: unknown): Json {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value) ?? 'null') as Json;
}
