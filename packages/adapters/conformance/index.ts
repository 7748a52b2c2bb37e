/**
 * The cross-adapter conformance suite: written once, run against every backend. A backend's
 * test file implements `ConformanceAdapter` and calls
 *
 *   describe('my backend', () => defineConformanceSuite(async () => makeMyAdapter()));
 *
 * which registers one test per case in cases.ts. The suite serves the demo API the examples
 * call, drives each run (deciding approvals when they are requested), and checks the final
 * status, the exact output, the error, the event sequence (rule in events.ts) and that the
 * event log folds to the same status and output.
 */
import { isRunEndEvent, type RunEvent, runState } from '@weft/engine';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceAdapter, ConformanceRunResult, MakeConformanceAdapter } from './adapter.ts';
import { CASES, type ConformanceCase } from './cases.ts';
import { type DemoApi, startDemoApi } from './demo-api.ts';
import { flattenPatterns, matchEvents, renderEvents } from './events.ts';
import { loadExamples, withApiBase } from './examples.ts';
import { defineHandOffCases } from './handoff.ts';
import { defineReplayCases } from './replay.ts';
import { checkTimeline } from './timeline.ts';

export type {
  ApprovalDecision,
  ConformanceAdapter,
  ConformanceRunResult,
  ConformanceStart,
  MakeConformanceAdapter,
} from './adapter.ts';
export { CASES, type ConformanceCase } from './cases.ts';
export { type DemoApi, startDemoApi } from './demo-api.ts';
export {
  type ConcurrentGroup,
  concurrent,
  type EventPattern,
  matchEvents,
  renderEvent,
  renderEvents,
} from './events.ts';
export { DEMO_API_DEFAULT_BASE, type Example, loadExamples, withApiBase } from './examples.ts';
export {
  calledSteps,
  type InngestTraceSpan,
  inngestRunOf,
  inngestRunTrace,
  queryRunTrace,
} from './inngest-history.ts';
export { REPLAY_FLOW, REPLAY_FLOWS } from './replay.ts';
export {
  inProcessUnderTest,
  type RunServiceAdapterOptions,
  runServiceConformanceAdapter,
} from './run-service-adapter.ts';

export interface ConformanceOptions {
  /** Per case, from start to the last check. Default 20 s. */
  caseTimeoutMs?: number;
  /** How often the suite reads the event log while it waits for an approval request. Default 10 ms. */
  pollMs?: number;
  /**
   * Cases this adapter is known to fail, by case name, each with the reason (a bug to fix, with
   * its repro). They run as `it.fails`: the suite stays green while the bug is open and turns
   * red the moment it is fixed, so the entry gets removed.
   */
  knownFailures?: Readonly<Record<string, string>>;
  /**
   * An external engine the in-process runner hands runs off to (Temporal, Inngest): the
   * hand-off cases run too, and the adapter must provide `startInProcess`. Default false.
   */
  handOff?: boolean;
}

export function defineConformanceSuite(makeAdapter: MakeConformanceAdapter, options: ConformanceOptions = {}): void {
  const timeoutMs = options.caseTimeoutMs ?? 20_000;
  const pollMs = options.pollMs ?? 10;
  let adapter: ConformanceAdapter | undefined;
  let api: DemoApi | undefined;

  beforeAll(async () => {
    api = await startDemoApi();
    adapter = await makeAdapter();
  });
  afterAll(async () => {
    await adapter?.close();
    await api?.close();
  });

  const known = options.knownFailures ?? {};
  for (const name of Object.keys(known)) {
    if (!CASES.some((testCase) => testCase.name === name)) throw new Error(`knownFailures names no case: '${name}'`);
  }

  defineReplayCases(() => adapter, timeoutMs);
  if (options.handOff) defineHandOffCases(() => adapter, timeoutMs);

  for (const testCase of CASES) {
    const caseTimeoutMs = Math.min(testCase.timeoutMs ?? timeoutMs, timeoutMs);
    const reason = known[testCase.name];
    const register = reason === undefined ? it : it.fails;
    register(
      reason === undefined ? testCase.name : `${testCase.name} [known failure: ${reason}]`,
      async () => {
        if (!adapter || !api) throw new Error('the conformance suite did not start');
        const { result, events } = await drive(adapter, testCase, api.baseUrl, { timeoutMs: caseTimeoutMs, pollMs });
        check(adapter.name, testCase, result, events);
        checkTimeline(adapter.name, result.status, events);
      },
      caseTimeoutMs + 5_000,
    );
  }
}

async function drive(
  adapter: ConformanceAdapter,
  testCase: ConformanceCase,
  apiBase: string,
  { timeoutMs, pollMs }: { timeoutMs: number; pollMs: number },
): Promise<{ result: ConformanceRunResult; events: RunEvent[] }> {
  const examples = loadExamples();
  const flow = examples.get(testCase.flow)?.flow;
  if (!flow) throw new Error(`case '${testCase.name}' names an unknown example '${testCase.flow}'`);
  const deadline = Date.now() + timeoutMs;
  const { runId } = await adapter.start({
    flow,
    flows: [...examples.values()].map((entry) => entry.flow),
    input: withApiBase(testCase.input, apiBase),
    fixtures: withApiBase(testCase.fixtures, apiBase),
  });

  // Decide each approval once the run has asked for it; stop early if the run ends first.
  const pending = new Map(Object.entries(testCase.approvals));
  while (pending.size > 0) {
    const events = await adapter.events(runId);
    if (events.some(isRunEndEvent)) break;
    const request = events.find((event) => event.type === 'approval.requested' && pending.has(event.stepId));
    if (request && request.type === 'approval.requested') {
      await adapter.decide(runId, request.stepId, pending.get(request.stepId)!);
      pending.delete(request.stepId);
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${adapter.name}: no approval.requested for ${[...pending.keys()].join(', ')} within ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }

  const result = await within(
    adapter.waitForEnd(runId),
    deadline - Date.now(),
    `${adapter.name}: run ${runId} did not end`,
  );
  if (pending.size > 0) {
    throw new Error(`the run ended (${result.status}) without requesting approval ${[...pending.keys()].join(', ')}`);
  }
  return { result, events: await adapter.events(runId) };
}

function check(adapterName: string, testCase: ConformanceCase, result: ConformanceRunResult, events: RunEvent[]): void {
  const want = testCase.expect;
  const why =
    result.status === 'waiting' ? 'the run parked and nothing resumed it' : `error: ${result.error?.message ?? 'none'}`;
  expect(result.status, `${adapterName}: status (${why})`).toBe(want.status);
  expect(result.output, `${adapterName}: output`).toEqual(want.output);
  if (want.error) {
    expect(result.error?.message ?? '', `${adapterName}: error message`).toContain(want.error.message);
    expect(result.error?.stepId, `${adapterName}: failing step`).toBe(want.error.stepId);
  } else {
    expect(result.error, `${adapterName}: error`).toBeNull();
  }

  // The log is well formed: one run, increasing sequence numbers, ending in the terminal event.
  const runIds = new Set(events.map((event) => event.runId));
  expect(runIds.size, `${adapterName}: events of one run`).toBe(1);
  events.forEach((event, index) => {
    if (index > 0) expect(event.seq, `${adapterName}: seq increases`).toBeGreaterThan(events[index - 1]!.seq);
  });

  const rendered = renderEvents(events);
  const match = matchEvents(want.events, rendered);
  // On a mismatch, compare with the expectation flattened (lanes in declared order): vitest
  // prints the diff, and the message names the first event that breaks the rule.
  if (!match.ok) expect(rendered, `${adapterName}: events — ${match.message}`).toEqual(flattenPatterns(want.events));

  // What the API, the CLI and the canvas draw (the reducer over the log) agrees with the result.
  const state = runState(events);
  expect(state.status, `${adapterName}: status folded from the events`).toBe(want.status);
  if (want.status === 'completed')
    expect(state.output, `${adapterName}: output folded from the events`).toEqual(want.output);
}

async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within the case timeout`)), Math.max(ms, 0));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
