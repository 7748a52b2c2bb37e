/**
 * The flow an editor address opens, asked for as soon as the page's code runs: the request then
 * overlaps React's first render of the app instead of waiting for the editor's effect after it
 * (EditorScreen takes the answer). Only for `#/flows/<id>`; the run view asks for the run.
 */
import { parseRoute } from '../components/route.ts';
import { trpc } from '../trpc.ts';

type FlowRecord = Awaited<ReturnType<typeof trpc.flows.get.query>>;

let pending: { flowId: string; record: Promise<FlowRecord> } | null = null;

export function prefetchRouteFlow(hash: string): void {
  const route = parseRoute(hash);
  if (route.screen !== 'editor' || route.runId !== undefined) return;
  const record = trpc.flows.get.query({ id: route.flowId });
  // Not unhandled while it waits: the editor that takes it handles a failure.
  record.catch(() => undefined);
  pending = { flowId: route.flowId, record };
}

/** The prefetched flow `flowId`, once: a later opening of the flow asks the server again. */
export function takePrefetchedFlow(flowId: string): Promise<FlowRecord> | null {
  if (pending?.flowId !== flowId) return null;
  const { record } = pending;
  pending = null;
  return record;
}
