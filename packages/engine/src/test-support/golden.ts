/**
 * Golden journals (Temporal's `history_files` idea): a run recorded once with a deterministic
 * host — every checkpointed answer with the hash of the call that produced it, the event trail
 * and the result — and replayed by `DeterminismProbeHost`, which answers only from that
 * journal. A replay that asks for anything else means the interpreter or the flow changed.
 */
import { type ErrorInfo, toErrorInfo } from '../errors.ts';
import type { RunEventInput } from '../events/events.ts';
import { hashCall, hashValue } from '../interpreter/call-hash.ts';
import type { InterpretOptions } from '../interpreter/context.ts';
import { formatFlowRef } from '../interpreter/flow-ref.ts';
import type { ApprovalOutcome, ApprovalRequest, CallPolicy, FlowRef, StepCall } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import { eventTrail, MemoryHost, type MemoryHostOptions } from './memory-host.ts';

/** One journaled answer. `kind` is the call kind, or sleep/spawn/approval. */
export interface GoldenEntry {
  kind: string;
  /** What the call looked like when it was recorded (see the hash helpers below). */
  hash: string;
  output?: Json;
  error?: ErrorInfo;
}

export interface GoldenJournal {
  /** The name of the recorded case. */
  flow: string;
  input: Json;
  journal: Record<string, GoldenEntry>;
  events: RunEventInput[];
  trail: string[];
  result: { output: Json } | { error: ErrorInfo };
}

export const sleepHash = (ms: number): string => `sleep:${ms}`;
export const spawnHash = (ref: FlowRef, input: Json): string => `spawn:${formatFlowRef(ref)}:${hashValue(input)}`;
export const approvalHash = (request: ApprovalRequest): string => `approval:${hashValue(request)}`;

/** A MemoryHost that also keeps every answer, with the hash of its call, as a golden journal. */
export class RecordingHost extends MemoryHost {
  readonly entries: Record<string, GoldenEntry> = {};

  override async run(id: string, call: StepCall, policy: CallPolicy): Promise<Json> {
    return this.#record(id, call.kind, hashCall(call), () => super.run(id, call, policy));
  }

  override async sleep(id: string, ms: number): Promise<{ until: string }> {
    const output = await this.#record(id, 'sleep', sleepHash(ms), () => super.sleep(id, ms));
    return output as { until: string };
  }

  override async spawn(id: string, ref: FlowRef, input: Json): Promise<Json> {
    return this.#record(id, 'spawn', spawnHash(ref, input), () => super.spawn(id, ref, input));
  }

  override async waitForApproval(id: string, request: ApprovalRequest): Promise<ApprovalOutcome> {
    const work = () => super.waitForApproval(id, request) as unknown as Promise<Json>;
    return (await this.#record(id, 'approval', approvalHash(request), work)) as unknown as ApprovalOutcome;
  }

  async #record(id: string, kind: string, hash: string, work: () => Promise<Json>): Promise<Json> {
    try {
      const output = await work();
      this.entries[id] = { kind, hash, output };
      return output;
    } catch (error) {
      this.entries[id] = { kind, hash, error: toErrorInfo(error) };
      throw error;
    }
  }
}

/** Runs `flow` over a RecordingHost and returns what a golden file holds. */
export async function recordGolden(
  name: string,
  flow: Flow,
  input: Json,
  host: MemoryHostOptions,
  options: InterpretOptions = {},
): Promise<GoldenJournal> {
  const recorder = new RecordingHost(host);
  let result: GoldenJournal['result'];
  try {
    result = { output: await interpret(flow, input, recorder, options) };
  } catch (error) {
    result = { error: toErrorInfo(error) };
  }
  return {
    flow: name,
    input,
    journal: recorder.entries,
    events: recorder.events,
    trail: eventTrail(recorder.events),
    result,
  };
}

/**
 * Events grouped by concurrency lane, each lane with the events of its enclosing lanes in
 * order. Within a lane (a parallel branch `fan.a/`, a map or loop iteration `each[2]/`, one
 * tool call of an agent turn `agent/tool#1.0`) events are sequential, so their order is part of
 * the contract; across sibling lanes it depends on how fast each host answers, so a replay may
 * interleave them differently from the recording, and a store dedupes them by key anyway.
 */
export function eventLanes(events: readonly RunEventInput[]): Record<string, RunEventInput[]> {
  const laneOf = (event: RunEventInput) => {
    const lane = 'stepId' in event ? (LANE.exec(event.stepId)?.[1] ?? '') : '';
    // Every lane ends in '/', so 'agent/tool#1.1' is not taken for an ancestor of 'agent/tool#1.10'.
    return lane === '' || lane.endsWith('/') ? lane : `${lane}/`;
  };
  const lanes = new Set(events.map(laneOf));
  const result: Record<string, RunEventInput[]> = {};
  for (const lane of [...lanes].sort()) {
    result[lane] = events.filter((event) => lane.startsWith(laneOf(event)));
  }
  return result;
}

/** The longest prefix of a step id that ends where concurrent work begins. */
const LANE = /^(.*(?:\.[A-Za-z_][A-Za-z0-9_]*\/|\[\d+\]\/|\/tool#\d+\.\d+$))/;
