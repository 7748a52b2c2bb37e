/**
 * Importing flow files together: a flow and the flows it spawns or calls as tools. Each file holds
 * one flow document or an array of them (a flow with its sub-flows in one file). Flows the files
 * use but neither hold nor find in the workspace are answered as `missing` (with whether the
 * examples folder has them), and nothing is saved; otherwise every document is validated against
 * the workspace and the other files first, then saved sub-flows first: a new flow, or a new
 * version when its id exists.
 */
import { TRPCError } from '@trpc/server';
import type { RunStore } from '@weft/adapters/store';
import { type Json, validateFlow } from '@weft/engine';
import { readExamples } from './examples/catalog.ts';
import { dependenciesFirst, flowRefsOf } from './flow-refs.ts';
import { storeFlowSource } from './flow-source.ts';
import { FlowValidationError, parseJson } from './routers/flows.ts';

export interface ImportFile {
  name: string;
  json: string;
}

export interface MissingFlow {
  /** The flow id a document uses. */
  flow: string;
  /** The flow that uses it. */
  neededBy: string;
  /** The examples folder has a flow of this id (import it from there with `fromExamples`). */
  inExamples: boolean;
}

export interface ImportedFlow {
  id: string;
  name: string;
  version: number;
  created: boolean;
}

interface Entry {
  id: string;
  doc: Json;
  file: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function badRequest(message: string): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message });
}

/** The flow documents of one file, each with an id. */
function documentsOf(file: ImportFile): Entry[] {
  let parsed: unknown;
  try {
    parsed = parseJson(file.json);
  } catch (error) {
    throw badRequest(`${file.name}: ${(error as Error).message}`);
  }
  const docs = Array.isArray(parsed) ? parsed : [parsed];
  return docs.map((doc, index) => {
    const where = Array.isArray(parsed) ? `${file.name} [${index}]` : file.name;
    if (!isRecord(doc)) throw badRequest(`${where} must hold a flow document (a JSON object)`);
    if (typeof doc.id !== 'string') throw badRequest(`${where}: id must be a string (the flow's id)`);
    return { id: doc.id, doc: doc as Json, file: where };
  });
}

export async function importFlowFiles(
  store: RunStore,
  files: readonly ImportFile[],
  options: { examplesDir: string; fromExamples: boolean },
): Promise<{ imported: ImportedFlow[]; missing: MissingFlow[] }> {
  const entries = new Map<string, Entry>();
  for (const entry of files.flatMap(documentsOf)) {
    const other = entries.get(entry.id);
    if (other) throw badRequest(`flow '${entry.id}' is in both ${other.file} and ${entry.file}: import one of them`);
    entries.set(entry.id, entry);
  }
  const stored = new Map(await storeFlowSource(store).documents());
  const examples = await readExamples(options.examplesDir);
  // What the files use and lack, looked for (transitively) in the examples when asked.
  const missing: MissingFlow[] = [];
  const queue = [...entries.values()];
  for (let entry = queue.shift(); entry; entry = queue.shift()) {
    for (const ref of flowRefsOf(entry.doc)) {
      if (entries.has(ref) || stored.has(ref)) continue;
      const example = examples.get(ref);
      if (options.fromExamples && example) {
        const added = { id: ref, doc: example.doc as Json, file: `examples/${ref}.json` };
        entries.set(ref, added);
        queue.push(added);
      } else if (!missing.some((known) => known.flow === ref)) {
        missing.push({ flow: ref, neededBy: entry.id, inExamples: example !== undefined });
      }
    }
  }
  if (missing.length > 0) return { imported: [], missing };

  // Everything is checked before anything is saved: the files stand in for stored flows of their ids.
  const scope = new Map<string, unknown>(stored);
  for (const entry of entries.values()) scope.set(entry.id, entry.doc);
  for (const entry of entries.values()) {
    const result = validateFlow(entry.doc, { flows: scope });
    if (!result.ok) {
      const cause = new FlowValidationError(result.errors);
      throw new TRPCError({ code: 'BAD_REQUEST', message: `${entry.file}: invalid flow: ${cause.message}`, cause });
    }
  }
  const imported: ImportedFlow[] = [];
  for (const entry of dependenciesFirst([...entries.values()])) {
    const created = !stored.has(entry.id);
    const record = await store.flows.save(entry.doc as Json & { id: string; name: string });
    imported.push({ id: record.id, name: record.name, version: record.version, created });
  }
  return { imported, missing: [] };
}
