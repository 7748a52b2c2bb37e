/**
 * What the Inngest server itself recorded of a Weft run: the run's trace, read from the dev
 * server's GraphQL API (`POST /v0/gql`, the `runTrace` query its own UI draws a run with).
 * Each `step.run` the function scheduled is one span (stepOp RUN) named by the step's id, so
 * the checkpointed calls Inngest ran are the RUN spans whose name is a checkpoint id, not one
 * of the function's bookkeeping steps (see src/inngest/function.ts and host.ts).
 */
import type { RunStore } from '../src/store/types.ts';

/** One span of `runTrace`, the fields read here. */
export interface InngestTraceSpan {
  name: string;
  /** RUN, SLEEP, WAIT_FOR_EVENT, INVOKE, …; null for the run's root span. */
  stepOp: string | null;
  /** COMPLETED, FAILED, RUNNING, QUEUED, … */
  status: string;
  queuedAt: string;
  startedAt: string | null;
  /** The run's steps, on the root span (not asked for below it). */
  childrenSpans?: InngestTraceSpan[];
}

const RUN_TRACE_QUERY = `query WeftRunTrace($runID: String!) {
  runTrace(runID: $runID) {
    ...Span
    childrenSpans { ...Span }
  }
}
fragment Span on RunTraceSpan { name stepOp status queuedAt startedAt }`;

/** The bookkeeping steps of the Weft function and host: never a checkpointed call. */
const BOOKKEEPING_SUFFIX = /#(prepare|decided|until|timed-out|journal)$/;

export function isCallStep(name: string): boolean {
  return !name.startsWith('@') && !BOOKKEEPING_SUFFIX.test(name);
}

/** The checkpoint ids of the `step.run` calls in a run's trace, in the order Inngest queued them. */
export function calledSteps(root: InngestTraceSpan): string[] {
  return (root.childrenSpans ?? [])
    .filter((span) => span.stepOp === 'RUN' && isCallStep(span.name))
    .sort((a, b) => Date.parse(a.queuedAt) - Date.parse(b.queuedAt))
    .map((span) => span.name);
}

/** How long a trace may take to show a run's end after Weft's store recorded it. */
const TRACE_SETTLE_MS = 10_000;
const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/**
 * The trace of one Inngest run, from the dev server at `baseUrl`, once it has ended: Weft's
 * store records the end inside the run's last step, a moment before Inngest records that step
 * and its finalization.
 */
export async function inngestRunTrace(baseUrl: string, inngestRunId: string): Promise<InngestTraceSpan> {
  const deadline = Date.now() + TRACE_SETTLE_MS;
  for (;;) {
    let last: string;
    try {
      const trace = await queryRunTrace(baseUrl, inngestRunId);
      if (FINAL.has(trace.status)) return trace;
      last = `is still ${trace.status}`;
    } catch (error) {
      // Not written yet, or a lost request: asked again until the deadline.
      last = `has no trace: ${(error as Error).message}`;
    }
    if (Date.now() > deadline)
      throw new Error(`the Inngest run ${inngestRunId} ${last} after ${TRACE_SETTLE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The trace as it stands now, ended or not. */
export async function queryRunTrace(baseUrl: string, inngestRunId: string): Promise<InngestTraceSpan> {
  const response = await fetch(new URL('/v0/gql', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: RUN_TRACE_QUERY, variables: { runID: inngestRunId } }),
  });
  const body = (await response.json()) as {
    data?: { runTrace?: InngestTraceSpan } | null;
    errors?: { message: string }[];
  };
  const trace = body.data?.runTrace;
  if (!response.ok || !trace)
    throw new Error(
      `runTrace(${inngestRunId}): ${response.status} ${body.errors?.map((error) => error.message).join('; ') ?? ''}`,
    );
  return trace;
}

/** The Inngest run that executes a Weft run: the function claims the Weft run as `inngest:<run id>`. */
export async function inngestRunOf(store: RunStore, runId: string): Promise<string> {
  const owner = (await store.getRun(runId))?.owner;
  if (!owner?.startsWith('inngest:')) throw new Error(`run ${runId} was not claimed by an Inngest run (${owner})`);
  return owner.slice('inngest:'.length);
}
