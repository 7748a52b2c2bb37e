/**
 * `weft runs show <runId> --at <seq>` and `--timeline`: the run debugger in a terminal. The state
 * at an event is the engine's reducer over the events up to it (what the scrubber draws); the
 * timeline is the engine's `timelineOf` (what the run view draws), one row per bar, with the
 * tokens and cost of model turns and llm steps from the same pricing as `runs.costs`.
 */
import type { RunCosts } from '@weft/adapters/service';
import type { RunEvent, RunState, StepState, TimelineBar, TimelineSegment } from '@weft/engine';
import { CliError, formatDuration, formatTime, printJsonLine, stdout, table } from '../../output.ts';
import type { ApiClient, Remote } from '../../remote.ts';
import { colourStatus, formatCost, formatTokens } from './list.ts';

/** What the header of either view names. */
export interface ShownRun {
  id: string;
  flowId: string;
  flowVersion: number;
  status: RunState['status'];
}

const bold = (text: string) => stdout.style('bold', text);

/** `--at`: a position that is not in the run is the caller's mistake, said with the range. */
export function checkPosition(runId: string, seq: number, events: readonly RunEvent[]): void {
  const last = events.at(-1)?.seq ?? 0;
  if (seq > last) throw new CliError(`--at: run '${runId}' has events up to ${last}, not ${seq}`);
}

export function printStateAt(
  run: ShownRun,
  seq: number,
  events: readonly RunEvent[],
  state: RunState,
  stepRow: (step: StepState) => string[],
  json: boolean,
): void {
  const event = [...events].reverse().find((candidate) => candidate.seq <= seq);
  if (json) {
    printJsonLine({ run, seq, event: event ?? null, state });
    return;
  }
  const last = events.at(-1)?.seq ?? 0;
  stdout.write(`${bold('run')}      ${run.id} (${run.flowId}@${run.flowVersion}, now ${colourStatus(run.status)})\n`);
  stdout.write(
    `${bold('at')}       event ${seq} of ${last}${event ? `: ${event.type}${'stepId' in event ? ` ${event.stepId}` : ''} at ${formatTime(event.at)}` : ' (before the first)'}\n`,
  );
  stdout.write(`${bold('status')}   ${colourStatus(state.status)}\n`);
  stdout.write(`\n${bold('steps')}\n`);
  const rows = state.order.map((id) => stepRow(state.steps[id]!));
  stdout.write(
    rows.length > 0
      ? table(['STEP', 'TYPE', 'STATUS', 'ATTEMPTS', 'DURATION', 'OUTPUT / ERROR'], rows, bold)
      : '  (none yet)\n',
  );
}

export function printTimeline(run: ShownRun, bars: readonly TimelineBar[], costs: RunCosts, json: boolean): void {
  if (json) {
    printJsonLine({ run, bars, costs });
    return;
  }
  const origin = bars[0]?.segments[0]?.start ?? 0;
  const rows = bars.map((bar) => {
    const cost = bar.stepId !== null && Object.hasOwn(costs.steps, bar.stepId) ? costs.steps[bar.stepId] : undefined;
    const priced = cost && (bar.kind === 'model-turn' || bar.stepType === 'llm');
    const start = bar.segments[0]?.start;
    return [
      `${'  '.repeat(bar.depth)}${bar.label}${bar.kind === 'child-run' && bar.childRunId ? ` (${bar.childRunId})` : ''}`,
      bar.kind,
      bar.status,
      start === undefined ? '—' : `+${formatDuration(start - origin)}`,
      spanOf(bar.segments),
      waitOf(bar.segments),
      bar.kind === 'run' ? '' : String(1 + bar.segments.filter((segment) => segment.kind === 'retry').length),
      priced ? `${formatTokens(cost.inputTokens)}→${formatTokens(cost.outputTokens)}` : '',
      priced ? (cost.free ? `$0 (${cost.free})` : formatCost(cost.usd, cost.unpriced)) : '',
    ];
  });
  stdout.write(`${bold('run')}      ${run.id} (${run.flowId}@${run.flowVersion}, ${colourStatus(run.status)})\n`);
  stdout.write(
    `${bold('total')}    ${formatTokens(costs.total.inputTokens)}→${formatTokens(costs.total.outputTokens)} tokens, ${formatCost(costs.total.usd, costs.total.unpriced)}${costs.total.unpriced.length > 0 ? ` (no price for ${costs.total.unpriced.join(', ')})` : ''}\n\n`,
  );
  stdout.write(
    rows.length > 0
      ? table(['BAR', 'KIND', 'STATUS', 'START', 'DURATION', 'WAITED', 'ATTEMPTS', 'TOKENS', 'COST'], rows, bold)
      : '  (no events)\n',
  );
}

/** From the first segment's start to the last one's end; "…" while it lasts. */
function spanOf(segments: readonly TimelineSegment[]): string {
  const first = segments[0];
  const last = segments.at(-1);
  if (!first || !last) return '—';
  return last.end === null ? '…' : formatDuration(last.end - first.start);
}

/** Time spent waiting (approval, sleep, backoff, queue, child run), with why. */
function waitOf(segments: readonly TimelineSegment[]): string {
  const reasons = new Map<string, number>();
  for (const segment of segments) {
    if (segment.kind !== 'wait' || segment.end === null || segment.end <= segment.start) continue;
    reasons.set(segment.reason, (reasons.get(segment.reason) ?? 0) + segment.end - segment.start);
  }
  return [...reasons].map(([reason, ms]) => `${formatDuration(ms)} ${reason}`).join(', ');
}

/** Every stored event of a run on a server, a page at a time (nothing waits for a live run). */
export async function remoteEvents(remote: Remote, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (let after = 0; ; ) {
    const page: Awaited<ReturnType<ApiClient['runs']['eventsPage']['query']>> = await remote.call((c) =>
      c.runs.eventsPage.query({ runId, after, limit: 5000 }),
    );
    events.push(...(page.events as RunEvent[]));
    if (page.nextAfter === null) return events;
    after = page.nextAfter;
  }
}
