import type { Flow } from '@weft/engine';
import { type FlowSource, memoryFlowSource } from '../src/backends/flow-source.ts';

/**
 * The corpus a run may spawn is given per start; a backend whose workers outlive one start
 * (Temporal, Inngest) reads the latest through this source.
 */
export function mutableFlowSource(): FlowSource & { set(flows: readonly Flow[]): void } {
  let current = memoryFlowSource([]);
  return {
    set(flows) {
      current = memoryFlowSource(flows);
    },
    getFlow: (ref) => current.getFlow(ref),
    documents: () => current.documents(),
  };
}
