/** Spawn targets come from the flow table: "flow-id" is its latest version, "flow-id@3" that one. */
import type { FlowSource } from '@weft/adapters/inprocess';
import type { RunStore } from '@weft/adapters/store';
import { type Flow, validateFlow } from '@weft/engine';

export function storeFlowSource(store: RunStore): FlowSource {
  return {
    async getFlow(ref) {
      const record = await store.flows.get(ref.id, ref.version);
      if (!record) return undefined;
      const result = validateFlow(record.doc);
      return result.ok ? ({ ...result.flow, version: record.version } as Flow) : undefined;
    },
    async documents() {
      const docs = new Map<string, unknown>();
      for (const summary of await store.flows.list()) {
        const record = await store.flows.get(summary.id);
        if (record) docs.set(summary.id, record.doc);
      }
      return docs;
    },
  };
}
