/**
 * The example corpus in `examples/`: each flow `<id>.json` with `<id>.input.json` and
 * `<id>.fixtures.json` beside it. The files name the demo API at its default address
 * (DEMO_API_DEFAULT_BASE, where `demo-api.ts` listens when started by hand); the suite
 * rewrites that address to the server it started.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Fixtures, type Flow, type Json, validateFlow } from '@weft/engine';
import { DEMO_API_PORT } from './demo-api.ts';

export const EXAMPLES_DIR = fileURLToPath(new URL('../../../examples/', import.meta.url));

export const DEMO_API_DEFAULT_BASE = `http://127.0.0.1:${DEMO_API_PORT}`;

export interface Example {
  id: string;
  /** The document as written. */
  doc: unknown;
  flow: Flow;
  input: Json;
  fixtures: Fixtures;
}

let cache: ReadonlyMap<string, Example> | undefined;

/** Every example, validated against the whole corpus (so spawn targets and flow tools resolve). */
export function loadExamples(): ReadonlyMap<string, Example> {
  if (cache) return cache;
  const ids = readdirSync(EXAMPLES_DIR)
    .filter((name) => name.endsWith('.json') && !name.endsWith('.input.json') && !name.endsWith('.fixtures.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
  const docs = new Map(ids.map((id) => [id, readJson(`${id}.json`)]));
  const examples = new Map<string, Example>();
  for (const [id, doc] of docs) {
    const result = validateFlow(doc, { flows: docs });
    if (!result.ok) {
      const problems = result.errors.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new Error(`examples/${id}.json is invalid: ${problems}`);
    }
    if (result.flow.id !== id) throw new Error(`examples/${id}.json has id '${result.flow.id}'; name it after its id`);
    examples.set(id, {
      id,
      doc,
      flow: result.flow,
      input: readJson(`${id}.input.json`),
      fixtures: readJson(`${id}.fixtures.json`) as Fixtures,
    });
  }
  cache = examples;
  return examples;
}

export function example(id: string): Example {
  const found = loadExamples().get(id);
  if (!found) throw new Error(`no example '${id}' in ${EXAMPLES_DIR}`);
  return found;
}

/** A copy of `value` with every mention of the demo API's default address pointed at `baseUrl`. */
export function withApiBase<T>(value: T, baseUrl: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(DEMO_API_DEFAULT_BASE, baseUrl)) as T;
}

function readJson(name: string): Json {
  return JSON.parse(readFileSync(`${EXAMPLES_DIR}${name}`, 'utf8')) as Json;
}
