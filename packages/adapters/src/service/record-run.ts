/**
 * The one place a run row is created from a flow document: the document is validated (host
 * tools and the flows it may spawn in scope), the input is checked against the flow's JSON
 * Schema and the size limit, and the row pins the exact flow version with its input. Root runs
 * come here through `RunService.start`, in-process children through the runner's spawn; an
 * external engine's children are recorded by backends/run-rows.ts from flows already checked.
 */
import { randomUUID } from 'node:crypto';
import {
  checkInput,
  childLists,
  FIRST_TOOL_CALL,
  type Fixtures,
  type Flow,
  FlowInvalidError,
  type Json,
  type Step,
  validateFlow,
} from '@weft/engine';
import type { FlowSource } from '../backends/flow-source.ts';
import type { BackendName } from '../backends/run-backend.ts';
import { checkFixtures } from '../executors/turn-shape.ts';
import { InputInvalidError } from '../inprocess/errors.ts';
import { checkInputSize } from '../inprocess/options.ts';
import type { RunHandoff, RunStore } from '../store/types.ts';
import { cachedFlow, flowCacheKey, rememberFlow } from './flow-cache.ts';

export interface RunRules {
  /** Where `spawn` and flow tools find other flows (for checking references). */
  flows: FlowSource;
  /** Names of tools the host application registered. */
  hostTools: readonly string[];
  /** Largest accepted input in bytes (default WEFT_MAX_INPUT_BYTES, else 1 MiB). */
  maxInputBytes: number | undefined;
  /** Refuses a hand-off this service cannot make (its target not configured): RunService's. */
  checkHandoff?: ((handoff: RunHandoff) => void) | undefined;
}

export interface NewRunRequest {
  /** A flow document: validated here, never trusted. */
  flow: unknown;
  input: Json;
  backend: BackendName;
  fixtures?: Fixtures | undefined;
  runId?: string | undefined;
  parentRunId?: string | undefined;
  parentStepId?: string | undefined;
  replayOf?: { runId: string; checkpoint: string } | undefined;
  /** Where the run hands off; wins over the flow's `handoff`. Kept only for a root in-process run. */
  handoff?: RunHandoff | undefined;
}

export function newRunId(): string {
  return `run_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
}

/**
 * Throws FlowInvalidError naming each problem's path. The flow comes back frozen: a document
 * validated before is not validated again (service/flow-cache.ts).
 */
export async function validatedFlow(doc: unknown, rules: RunRules): Promise<Flow> {
  const key = flowCacheKey(doc, rules.hostTools);
  const cached = cachedFlow(key);
  if (cached) return cached;
  const result = validateFlow(doc, { hostTools: [...rules.hostTools], flows: await rules.flows.documents() });
  if (!result.ok) throw new FlowInvalidError(result.errors);
  return rememberFlow(key, result.flow);
}

/** Validates and records a run; returns its id and the pinned flow. */
export async function recordRun(
  store: RunStore,
  rules: RunRules,
  request: NewRunRequest,
): Promise<{ runId: string; flow: Flow }> {
  const flow = await validatedFlow(request.flow, rules);
  // Malformed recorded turns are refused before the run exists, not when its llm step reaches them.
  if (request.fixtures !== undefined) checkFixtures(request.fixtures);
  checkInputSize(request.input, rules.maxInputBytes);
  const issues = checkInput(flow.input, request.input);
  if (issues.length > 0) throw new InputInvalidError(issues);
  const handoff = handoffOf(flow, request);
  if (handoff) rules.checkHandoff?.(handoff);
  const runId = request.runId ?? newRunId();
  await store.createRun({
    id: runId,
    flowId: flow.id,
    flowVersion: flow.version ?? 1,
    flow: flow as unknown as Json,
    input: request.input,
    backend: request.backend,
    fixtures: (request.fixtures ?? null) as Json,
    parentRunId: request.parentRunId ?? null,
    parentStepId: request.parentStepId ?? null,
    replayOf: request.replayOf ?? null,
    handoff,
  });
  return { runId, flow };
}

/**
 * The run's hand-off: the request's, else the flow's. Only a root run started in-process hands
 * off: a run started on Temporal or Inngest is durable already, and a child run goes where its
 * root goes.
 */
function handoffOf(flow: Flow, request: NewRunRequest): RunHandoff | null {
  const handoff = request.handoff ?? flow.handoff;
  if (!handoff || request.backend !== 'inprocess' || request.parentRunId !== undefined) return null;
  if (request.handoff && handoff.at !== FIRST_TOOL_CALL && !stepIds(flow.steps).has(handoff.at))
    throw new FlowInvalidError([
      {
        stepId: null,
        path: 'handoff.at',
        message: `'${handoff.at}' is neither "${FIRST_TOOL_CALL}" nor a step of flow '${flow.id}'`,
      },
    ]);
  return { to: handoff.to, at: handoff.at };
}

function stepIds(steps: readonly Step[], ids = new Set<string>()): Set<string> {
  for (const step of steps) {
    ids.add(step.id);
    for (const list of childLists(step)) stepIds(list.steps, ids);
  }
  return ids;
}
