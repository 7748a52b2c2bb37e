/**
 * A run's events as the AI SDK's UI message stream (what `useChat` reads). The translation is a
 * pure function of the event log, so the stream of a run can be built again from its stored
 * events at any time, and chunk `k` is always the same chunk: that is what resuming from a
 * position (`GET /api/chat/<chatId>/stream?from=k`) and resuming after a restart rest on.
 *
 * - The chosen `llm` steps' model turns become text parts (id: the turn's checkpoint, e.g.
 *   `answer/llm#1`), streamed from `step.delta` events. A delta carries its offset in the
 *   attempt's text, so an attempt that starts over (a retry, a resume after a crash) adds only
 *   the text not sent yet; a turn answered without deltas (reused from a seed) is sent whole.
 * - An agent's tool calls become dynamic tool parts (toolCallId: the call's checkpoint); each
 *   model turn starts a step (`start-step`), so the conversation a client sends back splits
 *   into the same assistant and tool messages the model produced.
 * - Every other step is a `data-step` part, updated in place by its id as its status changes.
 * - An approval is a `data-approval` part the client answers through the API.
 * - `data-run` carries the run id, status, backend and a hand-off; start and finish carry the
 *   run id in the message metadata.
 */
import { childLists, type Flow, isJsonObject, isRunEndEvent, type Json, type RunEvent, type Step } from '@weft/engine';
import type { UIMessage, UIMessageChunk } from 'ai';

export interface ChatRunMetadata {
  runId: string;
  status?: 'completed' | 'failed' | 'cancelled';
}

export type ChatStepStatus = 'running' | 'completed' | 'failed' | 'waiting';

export interface ChatDataParts {
  step: { stepId: string; stepType: string; status: ChatStepStatus; summary?: string };
  approval: {
    runId: string;
    stepId: string;
    prompt: string;
    status: 'pending' | 'approved' | 'rejected' | 'timed-out';
    by?: string | null;
    comment?: string | null;
  };
  run: {
    runId: string;
    status: 'running' | 'completed' | 'failed' | 'cancelled';
    backend: string | null;
    handoff: { from: string; to: string; checkpoint: string } | null;
  };
  // The UIDataTypes constraint wants an index signature.
  [name: string]: unknown;
}

export type ChatMessage = UIMessage<ChatRunMetadata, ChatDataParts>;
export type ChatChunk = UIMessageChunk<ChatRunMetadata, ChatDataParts>;

/** The id of a run's answer message: the same on every resume, and when it is settled. */
export function answerMessageId(runId: string): string {
  return `msg-${runId}`;
}

const SUMMARY_CHARS = 120;
const MODEL_TURN = /\/llm#\d+$/;

/** Turns a run's events, in order, into UI message chunks; `push` returns the chunks each event adds. */
export class ChatStreamTranslator {
  readonly #runId: string;
  readonly #textSteps: ReadonlySet<string>;
  /** Text sent so far per model turn (only turns whose text goes to the chat). */
  readonly #texts = new Map<string, string>();
  readonly #ended = new Set<string>();
  readonly #stepTypes = new Map<string, string>();
  readonly #toolCalls = new Set<string>();
  readonly #prompts = new Map<string, string>();
  #run: ChatDataParts['run'];
  #started = false;
  #anyText = false;
  #finished = false;

  constructor(runId: string, textSteps: ReadonlySet<string>) {
    this.#runId = runId;
    this.#textSteps = textSteps;
    this.#run = { runId, status: 'running', backend: null, handoff: null };
  }

  get finished(): boolean {
    return this.#finished;
  }

  push(event: RunEvent): ChatChunk[] {
    if (this.#finished) return [];
    const out: ChatChunk[] = [];
    if (!this.#started) {
      this.#started = true;
      out.push({ type: 'start', messageId: answerMessageId(this.#runId), messageMetadata: { runId: this.#runId } });
    }
    switch (event.type) {
      case 'run.started':
        this.#run = { ...this.#run, backend: event.backend };
        out.push(this.#runPart());
        break;
      case 'run.handed-off':
        this.#run = {
          ...this.#run,
          backend: event.to,
          handoff: { from: event.from, to: event.to, checkpoint: event.checkpoint },
        };
        out.push(this.#runPart());
        break;
      case 'step.started':
        this.#stepTypes.set(event.stepId, event.stepType);
        // One model call and its tool calls make a step, as the SDK's own agent loop streams
        // them: the client's next request turns each into its own assistant message.
        if (event.stepType === 'model-turn') {
          out.push({ type: 'start-step' });
          break;
        }
        if (event.stepType === 'tool-call') {
          const input = isJsonObject(event.input) ? event.input : {};
          this.#toolCalls.add(event.stepId);
          out.push({
            type: 'tool-input-available',
            toolCallId: event.stepId,
            toolName: typeof input.tool === 'string' ? input.tool : 'tool',
            input: input.args ?? {},
            dynamic: true,
          });
        } else out.push(stepPart(event.stepId, event.stepType, 'running'));
        break;
      case 'step.delta':
        if (this.#isText(event.stepId) && !this.#ended.has(event.stepId))
          this.#sendText(event.stepId, event.text, event.offset, out);
        break;
      case 'step.completed':
        this.#ended.add(event.stepId);
        if (this.#isText(event.stepId)) {
          const text = isJsonObject(event.output) && typeof event.output.text === 'string' ? event.output.text : '';
          const sent = this.#texts.get(event.stepId) ?? '';
          // What the deltas did not bring (none at all, for a turn reused from a seed).
          if (text.startsWith(sent) && text.length > sent.length)
            this.#sendText(event.stepId, text.slice(sent.length), sent.length, out);
          if (this.#texts.has(event.stepId)) out.push({ type: 'text-end', id: event.stepId });
        } else if (this.#toolCalls.has(event.stepId)) {
          out.push({ type: 'tool-output-available', toolCallId: event.stepId, output: event.output, dynamic: true });
        } else if (this.#stepTypes.get(event.stepId) !== 'model-turn') {
          out.push(stepPart(event.stepId, this.#typeOf(event.stepId), 'completed', summarize(event.output)));
        }
        break;
      case 'step.failed':
        this.#ended.add(event.stepId);
        if (this.#toolCalls.has(event.stepId)) {
          out.push({
            type: 'tool-output-error',
            toolCallId: event.stepId,
            errorText: event.error.message,
            dynamic: true,
          });
        } else {
          if (this.#texts.has(event.stepId)) out.push({ type: 'text-end', id: event.stepId });
          if (this.#stepTypes.get(event.stepId) !== 'model-turn')
            out.push(stepPart(event.stepId, this.#typeOf(event.stepId), 'failed', event.error.message));
        }
        break;
      case 'step.retrying':
        break;
      case 'approval.requested':
        this.#prompts.set(event.stepId, event.prompt);
        out.push(stepPart(event.stepId, this.#typeOf(event.stepId), 'waiting'));
        out.push(approvalPart({ runId: this.#runId, stepId: event.stepId, prompt: event.prompt, status: 'pending' }));
        break;
      case 'approval.resolved':
        out.push(
          approvalPart({
            runId: this.#runId,
            stepId: event.stepId,
            prompt: this.#prompts.get(event.stepId) ?? '',
            status: event.timedOut ? 'timed-out' : event.approved ? 'approved' : 'rejected',
            by: event.by,
            comment: event.comment,
          }),
        );
        break;
      case 'child.started':
        break;
      case 'run.completed':
        if (!this.#anyText) this.#sendWhole('output', textOf(event.output), out);
        this.#end('completed', out);
        break;
      case 'run.failed':
        out.push({ type: 'error', errorText: event.error.message });
        this.#end('failed', out);
        break;
      case 'run.cancelled':
        this.#end('cancelled', out);
        break;
    }
    return out;
  }

  /** Whether this checkpoint is a model turn of a step whose text goes to the chat. */
  #isText(checkpoint: string): boolean {
    if (!MODEL_TURN.test(checkpoint)) return false;
    return this.#textSteps.has(stepIdOfPath(checkpoint.replace(MODEL_TURN, '')));
  }

  #sendText(id: string, text: string, offset: number | undefined, out: ChatChunk[]): void {
    const sent = this.#texts.get(id);
    const start = offset ?? sent?.length ?? 0;
    const have = sent?.length ?? 0;
    // Text before what was sent is sent already (an attempt that started over); a gap is left to
    // the step's completion, which carries the whole text.
    if (start > have || start + text.length <= have) return;
    const fresh = text.slice(have - start);
    if (sent === undefined) {
      out.push({ type: 'text-start', id });
      this.#anyText = true;
    }
    this.#texts.set(id, (sent ?? '') + fresh);
    out.push({ type: 'text-delta', id, delta: fresh });
  }

  #sendWhole(id: string, text: string, out: ChatChunk[]): void {
    if (text === '') return;
    out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: text }, { type: 'text-end', id });
    this.#anyText = true;
  }

  #end(status: 'completed' | 'failed' | 'cancelled', out: ChatChunk[]): void {
    // Turns left open (their step never ended: the run failed or was cancelled) are closed.
    for (const id of this.#texts.keys()) if (!this.#ended.has(id)) out.push({ type: 'text-end', id });
    this.#run = { ...this.#run, status };
    out.push(this.#runPart());
    out.push({
      type: 'finish',
      finishReason: status === 'completed' ? 'stop' : status === 'failed' ? 'error' : 'other',
      messageMetadata: { runId: this.#runId, status },
    });
    this.#finished = true;
  }

  #typeOf(stepId: string): string {
    return this.#stepTypes.get(stepId) ?? 'step';
  }

  #runPart(): ChatChunk {
    return { type: 'data-run', id: 'run', data: { ...this.#run } };
  }
}

/**
 * A ReadableStream over an (async) iterable, pulled as the reader reads; cancelling the stream
 * (a client gone) returns the iterator, so a generator following a run stops following.
 */
export function streamOf<T>(items: AsyncIterable<T> | Iterable<T>): ReadableStream<T> {
  const iterator: AsyncIterator<T> | Iterator<T> =
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  return new ReadableStream<T>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** Every chunk of a run's stored events (a run that has not ended gives what it has so far). */
export function chunksOf(runId: string, textSteps: ReadonlySet<string>, events: readonly RunEvent[]): ChatChunk[] {
  const translator = new ChatStreamTranslator(runId, textSteps);
  const chunks: ChatChunk[] = [];
  for (const event of events) {
    chunks.push(...translator.push(event));
    if (isRunEndEvent(event)) break;
  }
  return chunks;
}

/**
 * The `llm` steps whose text goes to the chat: the flow's `chat.textSteps`, else the last `llm`
 * step the output reads (the last top-level step when the flow names no output), else the last
 * `llm` step of the flow.
 */
export function chatTextSteps(flow: Flow): Set<string> {
  if (flow.chat?.textSteps) return new Set(flow.chat.textSteps);
  const llmSteps: string[] = [];
  const visit = (steps: readonly Step[]) => {
    for (const step of steps) {
      if (step.type === 'llm') llmSteps.push(step.id);
      for (const list of childLists(step)) visit(list.steps);
    }
  };
  visit(flow.steps);
  if (flow.output === undefined) {
    const last = flow.steps.at(-1);
    if (last?.type === 'llm') return new Set([last.id]);
  } else {
    const output = JSON.stringify(flow.output);
    const read = llmSteps.filter((id) => output.includes(`steps.${id}.`) || output.includes(`steps["${id}"]`));
    if (read.length > 0) return new Set([read.at(-1)!]);
  }
  return new Set(llmSteps.slice(-1));
}

/** The step id a step path ends in (`each[2]/answer` → `answer`). */
function stepIdOfPath(path: string): string {
  return (path.split('/').at(-1) ?? path).replace(/\[\d+\]$/, '');
}

function stepPart(stepId: string, stepType: string, status: ChatStepStatus, summary?: string): ChatChunk {
  const data: ChatDataParts['step'] = { stepId, stepType, status };
  if (summary !== undefined && summary !== '') data.summary = summary;
  return { type: 'data-step', id: stepId, data };
}

function approvalPart(data: ChatDataParts['approval']): ChatChunk {
  return { type: 'data-approval', id: `approval:${data.stepId}`, data };
}

function textOf(value: Json): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function summarize(value: Json): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}
