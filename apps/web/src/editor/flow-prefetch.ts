/**
 * The flow an editor address opens, asked for as early as possible: by index.html's inline
 * script, before the app's modules are downloaded, else as soon as the page's code runs. The
 * request then overlaps loading the code and React's first render of the app instead of waiting
 * for the editor's effect after it (EditorScreen takes the answer). Only for `#/flows/<id>`; the
 * run view asks for the run.
 */
import { parseRoute } from '../components/route.ts';
import { trpc } from '../trpc.ts';

type FlowRecord = Awaited<ReturnType<typeof trpc.flows.get.query>>;

let pending: { flowId: string; record: Promise<FlowRecord>; arrived?: FlowRecord } | null = null;

/** What index.html's script asked for: a plain tRPC GET, not batched. */
interface EarlyFlow {
  id: string;
  response: Promise<Response>;
}

/** The early request's record, if it was for `flowId`; it is taken once. */
function earlyRecord(flowId: string): Promise<FlowRecord> | null {
  const holder = globalThis as typeof globalThis & { __weftFlow?: EarlyFlow };
  const early = holder.__weftFlow;
  holder.__weftFlow = undefined;
  if (early?.id !== flowId) return null;
  // Anything but a flow (an error, a token needed) is asked again through the client, whose
  // errors the editor knows how to show.
  const again = () => trpc.flows.get.query({ id: flowId });
  const data = early.response
    .then(async (response) =>
      response.ok ? ((await response.json()) as { result?: { data?: FlowRecord } }).result?.data : undefined,
    )
    .catch(() => undefined);
  return data.then((record) => record ?? again());
}

export function prefetchRouteFlow(hash: string): void {
  const route = parseRoute(hash);
  if (route.screen !== 'editor' || route.runId !== undefined) return;
  const record = earlyRecord(route.flowId) ?? trpc.flows.get.query({ id: route.flowId });
  const asked: NonNullable<typeof pending> = { flowId: route.flowId, record };
  // Kept as it arrives, so an editor that opens after that draws the flow in its first render.
  // Not unhandled while it waits: the editor that takes it handles a failure.
  record.then(
    (arrived) => {
      asked.arrived = arrived;
    },
    () => undefined,
  );
  pending = asked;
}

/** The prefetched flow `flowId` if it has arrived (taken once), else null: then wait for it. */
export function takeArrivedFlow(flowId: string): FlowRecord | null {
  if (pending?.flowId !== flowId || pending.arrived === undefined) return null;
  const { arrived } = pending;
  pending = null;
  return arrived;
}

/** The prefetched flow `flowId`, once: a later opening of the flow asks the server again. */
export function takePrefetchedFlow(flowId: string): Promise<FlowRecord> | null {
  if (pending?.flowId !== flowId) return null;
  const { record } = pending;
  pending = null;
  return record;
}
