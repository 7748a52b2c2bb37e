/**
 * A StepHost held entirely in memory, for engine tests and the in-memory benchmark. Calls are
 * answered by `execute`; with `stopAtNew` it is a replay probe: it answers from the journal
 * and, at the first call the journal does not hold, records that "next command" and parks.
 */

import { RunInterrupt } from '../errors.ts';
import type { RunEventInput } from '../events/events.ts';
import { eventKey } from '../events/events.ts';
import { hashCall } from '../interpreter/call-hash.ts';
import type { ApprovalOutcome, ApprovalRequest, CallPolicy, FlowRef, StepCall, StepHost } from '../interpreter/host.ts';
import type { Json } from '../json.ts';

export type Command =
  | { op: 'run'; id: string; kind: StepCall['kind']; input: unknown }
  | { op: 'approval'; id: string; prompt: string }
  | { op: 'sleep'; id: string; ms: number }
  | { op: 'spawn'; id: string; flow: string; input: Json };

export interface JournalRecord {
  output?: Json;
  error?: string;
}

export interface MemoryHostOptions {
  execute?: (call: StepCall, id: string, policy: CallPolicy) => Json | Promise<Json>;
  approvals?: Record<string, ApprovalOutcome>;
  spawn?: (ref: FlowRef, input: Json, id: string) => Json | Promise<Json>;
  journal?: Record<string, JournalRecord>;
  stopAtNew?: boolean;
  /** Keep every event, including replayed duplicates (default: dedupe by key like a store). */
  keepDuplicates?: boolean;
}

export class MemoryHost implements StepHost {
  readonly events: RunEventInput[] = [];
  readonly commands: Command[] = [];
  readonly journal: Map<string, JournalRecord>;
  readonly #keys = new Set<string>();
  readonly #options: MemoryHostOptions;

  constructor(options: MemoryHostOptions = {}) {
    this.#options = options;
    this.journal = new Map(Object.entries(options.journal ?? {}));
  }

  emit(event: RunEventInput): void {
    const key = eventKey(event);
    if (key !== null && !this.#options.keepDuplicates) {
      if (this.#keys.has(key)) return;
      this.#keys.add(key);
    }
    this.events.push(event);
  }

  async run(id: string, call: StepCall, policy: CallPolicy): Promise<Json> {
    const recorded = this.#recorded(id);
    if (recorded) return recorded.value;
    this.#park({ op: 'run', id, kind: call.kind, input: call.input });
    const execute = this.#options.execute;
    if (!execute) throw new Error(`no executor for ${call.kind} (${hashCall(call)})`);
    try {
      const output = await execute(call, id, policy);
      this.journal.set(id, { output });
      return output;
    } catch (error) {
      this.journal.set(id, { error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  async waitForApproval(id: string, request: ApprovalRequest): Promise<ApprovalOutcome> {
    const outcome = this.#options.approvals?.[id];
    if (!outcome) {
      this.commands.push({ op: 'approval', id, prompt: request.prompt });
      throw new RunInterrupt('suspended', `waiting for ${id}`);
    }
    return outcome;
  }

  async sleep(id: string, ms: number): Promise<{ until: string }> {
    const recorded = this.#recorded(id);
    if (recorded) return recorded.value as { until: string };
    this.#park({ op: 'sleep', id, ms });
    const until = new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    this.journal.set(id, { output: { until } });
    return { until };
  }

  async spawn(id: string, ref: FlowRef, input: Json): Promise<Json> {
    const recorded = this.#recorded(id);
    if (recorded) return recorded.value;
    this.#park({ op: 'spawn', id, flow: ref.version ? `${ref.id}@${ref.version}` : ref.id, input });
    if (!this.#options.spawn) throw new Error(`no flow '${ref.id}'`);
    const output = await this.#options.spawn(ref, input, id);
    this.journal.set(id, { output });
    return output;
  }

  #recorded(id: string): { value: Json } | undefined {
    const entry = this.journal.get(id);
    if (!entry) return undefined;
    if (entry.error !== undefined) throw new Error(entry.error);
    return { value: entry.output ?? null };
  }

  #park(command: Command): void {
    if (!this.#options.stopAtNew) return;
    this.commands.push(command);
    throw new RunInterrupt('suspended', `next command: ${command.op} ${command.id}`);
  }
}

/** Step events as compact strings ("started:a", "completed:a"), for readable assertions. */
export function eventTrail(events: readonly RunEventInput[]): string[] {
  return events
    .filter((event) => event.type !== 'step.delta')
    .map((event) =>
      'stepId' in event ? `${event.type.replace(/^(step|approval)\./, '')}:${event.stepId}` : event.type,
    );
}
