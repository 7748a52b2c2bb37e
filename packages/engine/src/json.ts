/** Plain JSON: everything that crosses the host boundary, the journal and run events is this. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

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
