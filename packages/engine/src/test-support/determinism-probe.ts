/**
 * A StepHost that refuses to do anything new: it answers every call from a golden journal and
 * throws DeterminismError when the interpreter asks for a step id the journal does not hold,
 * or for a recorded id with a call whose hash differs (the flow changed under the run).
 */
import { DeterminismError, type ErrorInfo } from '../errors.ts';
import type { RunEventInput } from '../events/events.ts';
import { eventKey } from '../events/events.ts';
import { hashCall, sameCall } from '../interpreter/call-hash.ts';
import type { ApprovalOutcome, ApprovalRequest, FlowRef, StepCall, StepHost } from '../interpreter/host.ts';
import type { Json } from '../json.ts';
import { approvalHash, type GoldenEntry, sleepHash, spawnHash } from './golden.ts';

export class DeterminismProbeHost implements StepHost {
  readonly events: RunEventInput[] = [];
  readonly #journal: Readonly<Record<string, GoldenEntry>>;
  readonly #consumed = new Set<string>();
  readonly #keys = new Set<string>();

  constructor(journal: Readonly<Record<string, GoldenEntry>>) {
    this.#journal = journal;
  }

  emit(event: RunEventInput): void {
    const key = eventKey(event);
    if (key !== null) {
      if (this.#keys.has(key)) return;
      this.#keys.add(key);
    }
    this.events.push(event);
  }

  async run(id: string, call: StepCall): Promise<Json> {
    return this.#answer(id, hashCall(call));
  }

  async sleep(id: string, ms: number): Promise<{ until: string }> {
    return (await this.#answer(id, sleepHash(ms))) as { until: string };
  }

  async spawn(id: string, ref: FlowRef, input: Json): Promise<Json> {
    return this.#answer(id, spawnHash(ref, input));
  }

  async waitForApproval(id: string, request: ApprovalRequest): Promise<ApprovalOutcome> {
    return (await this.#answer(id, approvalHash(request))) as unknown as ApprovalOutcome;
  }

  /** Journaled step ids the replay never asked for: the flow stopped doing something it did. */
  unconsumed(): string[] {
    return Object.keys(this.#journal).filter((id) => !this.#consumed.has(id));
  }

  #answer(id: string, hash: string): Json {
    const entry = Object.hasOwn(this.#journal, id) ? this.#journal[id] : undefined;
    if (entry === undefined) {
      throw new DeterminismError(
        `step '${id}' is not in the golden journal: the replay made a call the recording did not`,
      );
    }
    this.#consumed.add(id);
    if (!sameCall(entry.hash, hash)) {
      throw new DeterminismError(
        `step '${id}' was recorded as ${entry.hash} but the replay asks for ${hash}: the flow changed under the run`,
      );
    }
    if (entry.error !== undefined) throw rehydrate(entry.error);
    return entry.output ?? null;
  }
}

/** The recorded failure, thrown again with the same name, message and code. */
function rehydrate(info: ErrorInfo): Error {
  const error = new Error(info.message) as Error & { code?: string; stepId?: string };
  error.name = info.name;
  if (info.code !== undefined) error.code = info.code;
  if (info.stepId !== undefined) error.stepId = info.stepId;
  return error;
}
