/**
 * Renders run events as they are committed: one line per event (a step starting, completing,
 * failing, retrying; an approval; a child run), so any number of steps and parallel branches
 * read cleanly in a log. Token deltas stream inline on a terminal and one line each otherwise.
 * Model turns that are not a real provider say so: `[mock]` for mock: models, `[fixture]` for
 * recorded turns. Child runs' steps carry the spawning step as a prefix ("sub › step").
 */
import type { Fixtures, Json, RunEvent } from '@weft/engine';
import { formatDuration, preview, redact, type Writer } from './output.ts';

const ID_WIDTH = 18;

interface StepInfo {
  stepType: string;
  startedAt: number;
  parentId: string | undefined;
  model: string | undefined;
}

export class ProgressRenderer {
  readonly #out: Writer;
  readonly #labels: Map<string, string>;
  readonly #fixtures = new Map<string, Fixtures | null>();
  readonly #steps = new Map<string, StepInfo>();
  /** The step whose deltas are being written inline (TTY only), or null. */
  #inline: string | null = null;

  constructor(out: Writer, labels: Map<string, string> = new Map()) {
    this.#out = out;
    this.#labels = labels;
  }

  /** Tells the renderer a run's fixtures, so turns they answer are marked `[fixture]`. */
  setFixtures(runId: string, fixtures: Json | null): void {
    this.#fixtures.set(runId, (fixtures as Fixtures | null) ?? null);
  }

  handle = (event: RunEvent): void => {
    const label = this.#label(event.runId);
    switch (event.type) {
      case 'run.started':
        this.#line(
          this.#out.style('bold', '▶'),
          `${label ? `${label}child run ` : 'run '}${event.runId} · ${event.flowId}@${event.flowVersion} · ${event.backend}`,
        );
        return;
      case 'step.started': {
        const model = modelOf(event.input);
        const key = `${event.runId}|${event.stepId}`;
        this.#steps.set(key, { stepType: event.stepType, startedAt: event.at, parentId: event.parentId, model });
        this.#line(this.#out.style('dim', '▸'), this.#id(label, event.stepId), this.#describeStart(event, key));
        return;
      }
      case 'step.delta':
        this.#delta(label, event.runId, event.stepId, event.text);
        return;
      case 'step.completed': {
        const key = `${event.runId}|${event.stepId}`;
        const info = this.#steps.get(key);
        const parts = [this.#out.style('green', '✓'), this.#id(label, event.stepId), this.#duration(info, event.at)];
        if (info?.stepType === 'model-turn') {
          const turn = event.output as { text?: string; toolCalls?: { tool: string }[] } | null;
          const calls = turn?.toolCalls ?? [];
          if (calls.length > 0) parts.push(`→ ${calls.map((call) => call.tool).join(', ')}`);
          if (turn?.text) parts.push(JSON.stringify(preview(turn.text, 50)));
          if (event.usage) parts.push(this.#out.style('dim', `${event.usage.totalTokens} tok`));
          const tag = this.#tag(event.runId, event.stepId);
          if (tag) parts.push(tag);
        } else if (info?.stepType !== 'approval') {
          parts.push(this.#out.style('dim', preview(outputPreview(info?.stepType, event.output), 60)));
        }
        this.#line(...parts);
        return;
      }
      case 'step.failed': {
        const info = this.#steps.get(`${event.runId}|${event.stepId}`);
        this.#line(
          this.#out.style('red', '✗'),
          this.#id(label, event.stepId),
          this.#duration(info, event.at),
          this.#out.style('red', redact(event.error.message)),
        );
        return;
      }
      case 'step.retrying':
        this.#line(
          this.#out.style('yellow', '↻'),
          this.#id(label, event.stepId),
          `attempt ${event.attempt} failed: ${redact(preview(event.error.message, 80))}; retrying in ${formatDuration(event.delayMs)}`,
        );
        return;
      case 'approval.requested':
        this.#line(
          this.#out.style('yellow', '⏸'),
          this.#id(label, event.stepId),
          `approval requested: ${JSON.stringify(preview(event.prompt, 80))}`,
        );
        return;
      case 'approval.resolved': {
        const verdict = event.timedOut
          ? `timed out (${event.approved ? 'approved' : 'rejected'})`
          : `${event.approved ? 'approved' : 'rejected'}${event.by ? ` by ${event.by}` : ''}`;
        const comment = event.comment ? ` — ${JSON.stringify(preview(event.comment, 60))}` : '';
        this.#line(
          this.#out.style(event.approved ? 'green' : 'red', event.approved ? '☑' : '☒'),
          this.#id(label, event.stepId),
          verdict + comment,
        );
        return;
      }
      case 'child.started':
        this.#labels.set(event.childRunId, `${label}${event.stepId} › `);
        this.#fixtures.set(event.childRunId, this.#fixtures.get(event.runId) ?? null);
        this.#line(
          this.#out.style('cyan', '↳'),
          this.#id(label, event.stepId),
          `child run ${event.childRunId} (flow ${event.flowId})`,
        );
        return;
      case 'run.handed-off':
        this.#line(
          this.#out.style('cyan', '⇢'),
          `${label ? `${label}child run ` : 'run '}handed off from ${event.from} to ${event.to} at ${event.checkpoint}`,
        );
        return;
      case 'run.engine-unreachable':
        this.#line(
          this.#out.style('yellow', '⏳'),
          `${label ? `${label}child run ` : 'run '}waits for ${event.engine}: ${redact(preview(event.error.message, 80))}; started as soon as it answers`,
        );
        return;
      case 'run.engine-reached':
        this.#line(this.#out.style('cyan', '⇢'), `${label ? `${label}child run ` : 'run '}started on ${event.engine}`);
        return;
      case 'run.completed':
      case 'run.failed':
      case 'run.cancelled':
        // The root run's end is the summary line; a child's end is worth a line of its own.
        if (label) {
          const word = event.type.slice(4);
          const detail = event.type === 'run.failed' ? `: ${redact(event.error.message)}` : '';
          this.#line(this.#out.style('dim', '■'), `${label}child run ${word}${detail}`);
        }
        return;
    }
  };

  /** Ends an inline delta line, if one is open. Call before writing anything else. */
  end(): void {
    if (this.#inline !== null) {
      this.#out.write('\n');
      this.#inline = null;
    }
  }

  #describeStart(event: Extract<RunEvent, { type: 'step.started' }>, key: string): string {
    const info = this.#steps.get(key);
    switch (event.stepType) {
      case 'llm':
        return `llm ${info?.model ?? ''}${info?.model?.startsWith('mock:') ? ` ${this.#out.style('magenta', '[mock]')}` : ''}`;
      case 'model-turn': {
        const turn = /#(\d+)$/.exec(event.stepId)?.[1];
        const tag = this.#tag(event.runId, event.stepId);
        return `model turn ${turn ?? ''}${tag ? ` ${tag}` : ''}`;
      }
      case 'tool-call': {
        const input = event.input as { tool?: string; args?: Json } | undefined;
        return `tool ${input?.tool ?? ''} ${this.#out.style('dim', preview(input?.args ?? null, 50))}`;
      }
      default:
        return event.stepType;
    }
  }

  /** `[fixture]` when a recorded turn answers this model turn, `[mock]` for a mock: model. */
  #tag(runId: string, turnId: string): string {
    const info = this.#steps.get(`${runId}|${turnId}`);
    const parent = info?.parentId ?? /^(.*)\/llm#\d+$/.exec(turnId)?.[1];
    const turn = Number(/#(\d+)$/.exec(turnId)?.[1] ?? 0);
    const fixtures = this.#fixtures.get(runId);
    if (parent !== undefined && fixtures) {
      const bareId = parent.slice(parent.lastIndexOf('/') + 1);
      const turns = fixtures[parent] ?? fixtures[bareId];
      if (Array.isArray(turns) && turns.length >= turn) return this.#out.style('magenta', '[fixture]');
    }
    const model = parent !== undefined ? this.#steps.get(`${runId}|${parent}`)?.model : undefined;
    return model?.startsWith('mock:') ? this.#out.style('magenta', '[mock]') : '';
  }

  #delta(label: string, runId: string, stepId: string, text: string): void {
    const key = `${runId}|${stepId}`;
    if (!this.#out.isTTY) {
      this.#line(this.#out.style('dim', '⋯'), this.#id(label, stepId), JSON.stringify(text));
      return;
    }
    if (this.#inline !== key) {
      this.end();
      this.#out.write(`  ${this.#out.style('dim', '⋯')} ${this.#id(label, stepId)} `);
      this.#inline = key;
    }
    this.#out.write(text.replace(/\n/g, '\n      '));
  }

  #label(runId: string): string {
    return this.#labels.get(runId) ?? `[${runId}] `;
  }

  #id(label: string, stepId: string): string {
    const text = `${label}${stepId}`;
    return text.length >= ID_WIDTH ? text : text + ' '.repeat(ID_WIDTH - text.length);
  }

  #duration(info: StepInfo | undefined, at: number): string {
    return this.#out.style('dim', info ? formatDuration(at - info.startedAt) : '');
  }

  #line(...parts: string[]): void {
    this.end();
    this.#out.write(`  ${parts.filter((part) => part !== '').join(' ')}\n`);
  }
}

function modelOf(input: Json | undefined): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  return typeof input.model === 'string' ? input.model : undefined;
}

/** What to preview of a completed step: an llm step's text, not its whole conversation. */
function outputPreview(stepType: string | undefined, output: Json): unknown {
  if (stepType === 'llm' && typeof output === 'object' && output !== null && !Array.isArray(output)) {
    return output.object ?? output.text ?? '';
  }
  return output;
}
