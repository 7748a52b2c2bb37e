/**
 * The example flows the gallery shows: a folder of `<id>.json` flow documents, each with its run
 * input `<id>.input.json` and recorded model turns `<id>.fixtures.json` beside it (the repository's
 * `examples/`, or WEFT_EXAMPLES_DIR), and for those that call the demo API a recorded run in
 * `recordings/<id>.json`, so they too run offline. Read on each request: there are a handful, and a folder
 * edited while the server runs needs no restart.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { JournalEntry } from '@weft/adapters/store';
import { parseTestCase } from '@weft/adapters/testing';
import type { Json } from '@weft/engine';
import { flowRefsOf, stepTypesOf, toolKindsOf } from '../flow-refs.ts';

/** The repository's `examples/` folder. */
export const DEFAULT_EXAMPLES_DIR = resolve(import.meta.dirname, '../../../../../examples');

export interface Example {
  id: string;
  /** The flow document as the file has it. */
  doc: Record<string, unknown>;
  /** `<id>.input.json`, else `{}`. */
  input: Json;
  /** `<id>.fixtures.json`: recorded model turns by step id, or null for flows that need none. */
  fixtures: Record<string, Json[]> | null;
  /**
   * `recordings/<id>.json`: a run made with the demo API up, saved as a test case
   * (`weft runs save-test`); its recorded calls answer the http calls when the demo API cannot.
   */
  recording: JournalEntry[] | null;
}

/** What a gallery card shows. */
export interface ExampleSummary {
  id: string;
  name: string;
  description: string;
  stepTypes: string[];
  /** Kinds of flow tools: `http`, `source` (code), `flow` (a sub-flow). */
  toolKinds: string[];
  /** The flows it spawns or calls as tools (saved with it). */
  subFlows: string[];
  /** The demo API its http calls go to (its input's `apiBase`), or null when it makes none. */
  demoApi: string | null;
  /** Without the demo API, its http calls are answered from a recording (`recordings/<id>.json`). */
  recorded: boolean;
  /** It asks a person to approve (the run waits in the run view). */
  approvals: boolean;
  /** A flow with this id is in the workspace already. */
  inWorkspace: boolean;
}

const SIDE_FILE = /\.(input|fixtures)\.json$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8'));
}

async function readOptional(file: string): Promise<unknown> {
  try {
    return await readJson(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Every example in `dir` by id, in file-name order. A missing folder is no examples; a file that
 * is not a flow document (no string `id`) is left out.
 */
export async function readExamples(dir: string): Promise<Map<string, Example>> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [] as string[];
    throw error;
  });
  const examples = new Map<string, Example>();
  for (const name of names.sort()) {
    if (!name.endsWith('.json') || SIDE_FILE.test(name)) continue;
    const doc = await readJson(join(dir, name)).catch(() => undefined);
    if (!isRecord(doc) || typeof doc.id !== 'string') continue;
    const stem = name.slice(0, -'.json'.length);
    const input = (await readOptional(join(dir, `${stem}.input.json`))) ?? {};
    const fixtures = await readOptional(join(dir, `${stem}.fixtures.json`));
    const recording = await readOptional(join(dir, 'recordings', `${stem}.json`));
    examples.set(doc.id, {
      id: doc.id,
      doc,
      input: input as Json,
      fixtures: isRecord(fixtures) ? (fixtures as Record<string, Json[]>) : null,
      recording: recording === undefined ? null : parseTestCase(recording, `recordings/${stem}.json`).recorded,
    });
  }
  return examples;
}

/** The demo API an example's http calls go to: its input's `apiBase`. */
export function demoApiOf(example: Example): string | null {
  const base = isRecord(example.input) ? example.input.apiBase : undefined;
  return typeof base === 'string' ? base : null;
}

export function summaryOf(example: Example, inWorkspace: boolean): ExampleSummary {
  const { doc } = example;
  const stepTypes = stepTypesOf(doc);
  return {
    id: example.id,
    name: typeof doc.name === 'string' ? doc.name : example.id,
    description: typeof doc.description === 'string' ? doc.description : '',
    stepTypes,
    toolKinds: toolKindsOf(doc),
    subFlows: flowRefsOf(doc),
    demoApi: demoApiOf(example),
    recorded: example.recording !== null,
    approvals: stepTypes.includes('approval'),
    inWorkspace,
  };
}

/**
 * Why an example that calls the demo API cannot run from this server now, or null when it can:
 * http steps refuse loopback addresses unless WEFT_HTTP_ALLOW_PRIVATE=1, and the demo API must
 * answer at its address.
 */
export async function demoApiProblem(
  example: Example,
  env: Record<string, string | undefined>,
): Promise<string | null> {
  const base = demoApiOf(example);
  if (base === null) return null;
  const start = `start it with \`node packages/adapters/conformance/demo-api.ts\``;
  if (env.WEFT_HTTP_ALLOW_PRIVATE !== '1') {
    return (
      `${example.id} calls the demo API at ${base}: ${start} and restart weft serve with ` +
      'WEFT_HTTP_ALLOW_PRIVATE=1 (http steps refuse loopback addresses without it)'
    );
  }
  try {
    // Any answer means it is up; only a refused or silent connection is a problem.
    await fetch(base, { signal: AbortSignal.timeout(1000) });
    return null;
  } catch {
    return `${example.id} calls the demo API at ${base}, which does not answer: ${start}`;
  }
}

/**
 * The example `id` and every flow it uses from the examples, each once, sub-flows first. Throws
 * naming a flow that is neither in the workspace (`stored`) nor among the examples.
 */
export function withSubFlows(
  examples: ReadonlyMap<string, Example>,
  id: string,
  stored: (id: string) => boolean,
): Example[] {
  const ordered: Example[] = [];
  const seen = new Set<string>();
  const visit = (flowId: string, neededBy: string | null) => {
    if (seen.has(flowId)) return;
    seen.add(flowId);
    const example = examples.get(flowId);
    if (!example) {
      if (neededBy !== null && stored(flowId)) return;
      throw new Error(
        neededBy === null
          ? `no example '${flowId}'`
          : `example '${neededBy}' uses flow '${flowId}', which is neither in the workspace nor among the examples`,
      );
    }
    for (const ref of flowRefsOf(example.doc)) visit(ref, flowId);
    ordered.push(example);
  };
  visit(id, null);
  return ordered;
}
