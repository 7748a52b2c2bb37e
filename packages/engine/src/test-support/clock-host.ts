/**
 * A StepHost on a virtual clock, for tests that care when things happened: calls take the time a
 * test gives them, approvals wait, retries back off as the in-process runner does (emitting
 * `step.retrying`), a spawn runs the child flow as a run of its own, and every event is stamped
 * as a store stamps it (seq from 1 per run, `at` from the clock). Timers fire in time order once
 * everything else has settled, so a run's times are exact and repeatable.
 */
import { toErrorInfo } from '../errors.ts';
import type { RunEvent, RunEventInput } from '../events/events.ts';
import type {
  ApprovalOutcome,
  ApprovalRequest,
  CallPolicy,
  Fixtures,
  FlowRef,
  StepCall,
  StepHost,
} from '../interpreter/host.ts';
import { retryDelayMs } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import { drain } from './flows.ts';
import { createExecutor } from './model.ts';

export const T0 = 1_000_000;

/** Timers fire in time order once everything else has settled: a run's times are exact and repeatable. */
export class VirtualClock {
  now = T0;
  #timers: { at: number; order: number; fire(): void }[] = [];
  #order = 0;

  sleep(ms: number): Promise<void> {
    return new Promise((fire) => this.#timers.push({ at: this.now + ms, order: this.#order++, fire }));
  }

  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    settled.catch(() => undefined);
    for (;;) {
      await drain(2);
      if (done) return settled;
      this.#timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.#timers.shift();
      if (!next) throw new Error('the run waits for nothing: deadlock');
      this.now = next.at;
      next.fire();
    }
  }
}

export interface HostOptions {
  /** How long each call takes, by checkpoint id (default 10 ms). */
  durations?: Record<string, number>;
  /** Errors of failing attempts, by checkpoint id: the nth entry fails attempt n. */
  failures?: Record<string, string[]>;
  /** How long each approval waits for its decision. */
  approvalMs?: number;
  children?: Record<string, Flow>;
  tools?: Record<string, (args: Json) => Json>;
  fixtures?: Fixtures;
}

/** A StepHost on the virtual clock that stamps events as a store does and retries as the in-process runner does. */
export class ClockHost implements StepHost {
  readonly events: RunEvent[] = [];
  readonly clock: VirtualClock;
  readonly runId: string;
  readonly options: HostOptions;
  readonly logs: Map<string, RunEvent[]>;
  readonly #execute;

  constructor(clock: VirtualClock, runId: string, options: HostOptions, logs: Map<string, RunEvent[]>) {
    this.clock = clock;
    this.runId = runId;
    this.options = options;
    this.logs = logs;
    logs.set(runId, this.events);
    this.#execute = createExecutor({ tools: options.tools ?? {} });
  }

  emit(event: RunEventInput): void {
    this.events.push({ ...event, runId: this.runId, seq: this.events.length + 1, at: this.clock.now } as RunEvent);
  }

  async run(id: string, call: StepCall, policy: CallPolicy): Promise<Json> {
    for (let attempt = 1; ; attempt++) {
      await this.clock.sleep(this.options.durations?.[id] ?? 10);
      const failure = this.options.failures?.[id]?.[attempt - 1];
      if (failure === undefined) return this.#execute(call, id, policy);
      if (attempt >= policy.retry.maxAttempts) throw new Error(failure);
      const delayMs = retryDelayMs(policy.retry, attempt);
      this.emit({ type: 'step.retrying', stepId: id, attempt, error: toErrorInfo(new Error(failure)), delayMs });
      await this.clock.sleep(delayMs);
    }
  }

  async waitForApproval(_id: string, _request: ApprovalRequest): Promise<ApprovalOutcome> {
    await this.clock.sleep(this.options.approvalMs ?? 500);
    return { kind: 'decided', approved: true, by: 'ada', comment: null, at: new Date(this.clock.now).toISOString() };
  }

  async sleep(_id: string, ms: number): Promise<{ until: string }> {
    await this.clock.sleep(ms);
    return { until: new Date(this.clock.now).toISOString() };
  }

  async spawn(id: string, ref: FlowRef, input: Json): Promise<Json> {
    const flow = this.options.children?.[ref.id];
    if (!flow) throw new Error(`no flow '${ref.id}'`);
    const childRunId = `${this.runId}.${id}`;
    this.emit({ type: 'child.started', stepId: id, childRunId, flowId: ref.id });
    await this.clock.sleep(5); // the child run's queue
    return runFlow(new ClockHost(this.clock, childRunId, this.options, this.logs), flow, input);
  }
}

export async function runFlow(host: ClockHost, flow: Flow, input: Json): Promise<Json> {
  host.emit({ type: 'run.started', flowId: flow.id, flowVersion: 1, input, backend: 'test' });
  await host.clock.sleep(3); // queued before the first step
  try {
    const hostTools = Object.fromEntries(
      Object.keys(host.options.tools ?? {}).map((name) => [name, { description: name, parameters: {} }]),
    );
    const output = await interpret(flow, input, host, { hostTools, fixtures: host.options.fixtures ?? {} });
    host.emit({ type: 'run.completed', output });
    return output;
  } catch (error) {
    host.emit({ type: 'run.failed', error: toErrorInfo(error) });
    throw error;
  }
}

/** Runs `flow` to its end and returns every run's log (the root's is 'r1'). */
export async function record(
  flow: Flow,
  options: HostOptions = {},
  input: Json = null,
): Promise<Map<string, RunEvent[]>> {
  const clock = new VirtualClock();
  const logs = new Map<string, RunEvent[]>();
  await clock.run(runFlow(new ClockHost(clock, 'r1', options, logs), flow, input).catch(() => null));
  return logs;
}
