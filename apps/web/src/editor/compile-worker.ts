/**
 * graph → IR compilation (with validation) off the page's thread, for large flows: the live
 * problems check of a 2,000-step flow takes tens of milliseconds, more than a frame. Answers
 * each request with its sequence number and the problems found.
 */
import { type FlowGraph, graphToFlow } from '@weft/engine';

export interface CompileRequest {
  seq: number;
  graph: FlowGraph;
}

export interface CompileAnswer {
  seq: number;
  errors: { nodeId: string | null; message: string }[];
}

self.onmessage = (event: MessageEvent<CompileRequest>) => {
  const { seq, graph } = event.data;
  const result = graphToFlow(graph);
  const errors = result.ok ? [] : result.errors.map((issue) => ({ nodeId: issue.nodeId, message: issue.message }));
  self.postMessage({ seq, errors } satisfies CompileAnswer);
};
