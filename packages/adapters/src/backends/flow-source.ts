/**
 * Where a runner (and the Temporal worker and Inngest function, for spawned children) finds
 * flows by id for `spawn` and flow tools. The CLI reads a folder of JSON files (below); the API
 * reads its flow table (storeFlowSource in apps/api/src/server/flow-source.ts). `getFlow`
 * answers flows ready to run: the folder and the table validate each document (an invalid one
 * is not found), while a memory source holds flows its caller has validated.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Flow, type FlowRef, formatFlowRef, validateFlow } from '@weft/engine';

export interface FlowSource {
  getFlow(ref: FlowRef): Promise<Flow | undefined>;
  /**
   * One raw document per id (the table's latest version; the folder's or memory's last one
   * given), for validating a flow that spawns others: its spawn targets and cycles.
   */
  documents(): Promise<ReadonlyMap<string, unknown>>;
}

export class FlowNotFoundError extends Error {
  constructor(ref: FlowRef) {
    super(`unknown flow '${formatFlowRef(ref)}'`);
    this.name = 'FlowNotFoundError';
  }
}

/**
 * Flows held in memory (tests, the conformance suite, the benchmarks), or none (a runner's
 * default, the CLI without a flows folder). Each id may have several versions.
 */
export function memoryFlowSource(flows: readonly Flow[]): FlowSource {
  const byId = new Map<string, Flow[]>();
  for (const flow of flows) byId.set(flow.id, [...(byId.get(flow.id) ?? []), flow]);
  return {
    async getFlow(ref) {
      const versions = byId.get(ref.id) ?? [];
      if (ref.version === undefined)
        return versions.reduce<Flow | undefined>(
          (best, flow) => (!best || (flow.version ?? 1) > (best.version ?? 1) ? flow : best),
          undefined,
        );
      return versions.find((flow) => (flow.version ?? 1) === ref.version);
    },
    async documents() {
      return new Map([...byId].map(([id, versions]) => [id, versions.at(-1)]));
    },
  };
}

/**
 * Every `*.json` file in a folder that is a flow document (others are ignored: inputs, fixtures).
 * An invalid flow is among the documents, for validation messages, but `getFlow` does not find it.
 */
export async function directoryFlowSource(dir: string): Promise<FlowSource> {
  const docs = new Map<string, unknown>();
  const flows: Flow[] = [];
  for (const name of (await readdir(dir)).filter((file) => file.endsWith('.json')).sort()) {
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
    if (typeof doc !== 'object' || doc === null || !('irVersion' in doc) || !('id' in doc)) continue;
    const id = String((doc as { id: unknown }).id);
    docs.set(id, doc);
    const result = validateFlow(doc);
    if (result.ok) flows.push(result.flow);
  }
  const source = memoryFlowSource(flows);
  return { getFlow: source.getFlow, documents: async () => docs };
}
