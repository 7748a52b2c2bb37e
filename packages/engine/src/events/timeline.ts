/**
 * A run's timeline: one bar per checkpoint — each step, each model turn and tool call of an
 * agent loop, each map item and loop iteration (group bars for `each[i]` / `loop[i]`), child runs,
 * approvals and sleeps — with segments saying when it worked, when it waited (an approval, a
 * sleep, a retry's backoff, queueing behind a map's concurrency, a child run) and each failed
 * attempt as its own `retry` segment. Built in one pass over the stored events, so the run
 * debugger, the CLI's `--timeline` and a test read the same thing.
 *
 * Segments carry the seq of the events that opened and closed them, so `barAt` can draw a bar as
 * it was after event k exactly (times alone cannot: many events share a millisecond).
 */
import type { ErrorInfo } from '../errors.ts';
import type { Json } from '../json.ts';
import type { RunEvent } from './events.ts';
import type { StepStatus } from './reducer.ts';

export type TimelineBarKind =
  | 'run'
  | 'step'
  | 'model-turn'
  | 'tool-call'
  | 'map-item'
  | 'loop-iteration'
  | 'approval'
  | 'sleep'
  | 'child-run';

/** A step's status, or `cancelled` for a bar the run ended before it did. */
export type BarStatus = StepStatus | 'cancelled';

export type WaitReason = 'queued' | 'approval' | 'sleep' | 'backoff' | 'child';

interface Span {
  /** ms since the epoch. */
  start: number;
  /** null while it lasts. */
  end: number | null;
  /** The seq of the event that opened it, and of the one that closed it (null while open). */
  startSeq: number;
  endSeq: number | null;
}

export type TimelineSegment =
  | (Span & { kind: 'work' })
  | (Span & { kind: 'wait'; reason: WaitReason })
  /** An attempt that failed and was retried (`step.retrying`), with its error. */
  | (Span & { kind: 'retry'; attempt: number; error: ErrorInfo });

export interface TimelineBar {
  /** Unique in the timeline: the step id, `<container>[i]` for a group, `@run`, `child:<runId>`. */
  id: string;
  /** The run step this bar draws (a group's path for map items and loop iterations); null for the run. */
  stepId: string | null;
  parentId: string | null;
  kind: TimelineBarKind;
  /** The step type from `step.started` (`llm`, `model-turn`, `tool-call`, …), if any. */
  stepType: string | null;
  label: string;
  depth: number;
  status: BarStatus;
  segments: TimelineSegment[];
  /** The child run a `spawn` step or a flow tool started. */
  childRunId?: string;
  /** Set on bars nested from a child run's own timeline (`nestTimeline`): the run they belong to. */
  runId?: string;
}

/** The id of the bar for the run itself (never a step id: those are identifiers). */
export const RUN_BAR_ID = '@run';

/** A bar while the timeline is built (its children, in start order, are kept apart in a `Children` map). */
type Builder = TimelineBar;
type Children = Map<string, Builder[]>;

/** The timeline of one run's stored events, bars in tree order (each followed by its descendants). */
export function timelineOf(events: readonly RunEvent[]): TimelineBar[] {
  const bars = new Map<string, Builder>();
  const children: Children = new Map();
  const roots: Builder[] = [];
  let run: Builder | null = null;
  let runEnd: { at: number; seq: number; cancelled: boolean } | null = null;

  const add = (bar: Omit<Builder, 'depth'>): Builder => {
    const parent = bar.parentId === null ? undefined : bars.get(bar.parentId);
    const built: Builder = { ...bar, parentId: parent ? bar.parentId : null, depth: 0 };
    bars.set(built.id, built);
    if (!parent) roots.push(built);
    else {
      const siblings = children.get(parent.id);
      if (siblings) siblings.push(built);
      else children.set(parent.id, [built]);
    }
    return built;
  };

  for (const event of events) {
    switch (event.type) {
      case 'run.started':
        run = add({
          id: RUN_BAR_ID,
          stepId: null,
          parentId: null,
          kind: 'run',
          stepType: null,
          label: event.flowId,
          status: 'running',
          segments: [{ kind: 'wait', reason: 'queued', start: event.at, end: null, startSeq: event.seq, endSeq: null }],
        });
        break;
      case 'step.started': {
        if (bars.has(event.stepId)) break;
        // The run stops queueing at its first step.
        if (run && run.segments.length === 1 && run.segments[0]!.end === null) switchTo(run, event, 'work');
        const parentId = groupOf(bars, event.stepId, event.parentId ?? null, event, add);
        const kind = barKind(event.stepType);
        add({
          id: event.stepId,
          stepId: event.stepId,
          parentId,
          kind,
          stepType: event.stepType,
          label: labelOf(event.stepId, parentId, kind, event.input),
          status: kind === 'sleep' ? 'waiting' : 'running',
          segments: [
            kind === 'sleep'
              ? { kind: 'wait', reason: 'sleep', start: event.at, end: null, startSeq: event.seq, endSeq: null }
              : { kind: 'work', start: event.at, end: null, startSeq: event.seq, endSeq: null },
          ],
        });
        break;
      }
      case 'step.delta':
        break;
      case 'step.retrying': {
        const bar = bars.get(event.stepId);
        if (!bar) break;
        const open = openSegment(bar);
        if (open) {
          // The attempt that just failed becomes a segment of its own, then the backoff, then the next attempt.
          bar.segments[bar.segments.length - 1] = {
            kind: 'retry',
            attempt: event.attempt,
            error: event.error,
            start: open.start,
            end: event.at,
            startSeq: open.startSeq,
            endSeq: event.seq,
          };
        }
        const next = event.at + Math.max(0, event.delayMs);
        bar.segments.push(
          { kind: 'wait', reason: 'backoff', start: event.at, end: next, startSeq: event.seq, endSeq: event.seq },
          { kind: 'work', start: next, end: null, startSeq: event.seq, endSeq: null },
        );
        bar.status = 'retrying';
        break;
      }
      case 'step.completed':
      case 'step.failed': {
        const bar = bars.get(event.stepId);
        if (!bar) break;
        close(bar, event);
        bar.status = event.type === 'step.completed' ? 'completed' : 'failed';
        const child = bar.childRunId === undefined ? undefined : bars.get(childBarId(bar.childRunId));
        if (child) {
          close(child, event);
          child.status = bar.status;
        }
        break;
      }
      case 'approval.requested': {
        const bar = bars.get(event.stepId);
        if (!bar) break;
        switchTo(bar, event, 'wait', 'approval');
        bar.status = 'waiting';
        break;
      }
      case 'approval.resolved': {
        const bar = bars.get(event.stepId);
        if (!bar) break;
        switchTo(bar, event, 'work');
        bar.status = 'running';
        break;
      }
      case 'child.started': {
        const bar = bars.get(event.stepId);
        if (!bar) break;
        bar.childRunId = event.childRunId;
        switchTo(bar, event, 'wait', 'child');
        add({
          id: childBarId(event.childRunId),
          stepId: event.stepId,
          parentId: bar.id,
          kind: 'child-run',
          stepType: null,
          label: `child run · ${event.flowId}`,
          status: 'running',
          segments: [{ kind: 'work', start: event.at, end: null, startSeq: event.seq, endSeq: null }],
          childRunId: event.childRunId,
        });
        break;
      }
      case 'run.completed':
      case 'run.failed':
      case 'run.cancelled':
        runEnd = { at: event.at, seq: event.seq, cancelled: event.type !== 'run.completed' };
        if (run) {
          close(run, event);
          run.status =
            event.type === 'run.completed' ? 'completed' : event.type === 'run.failed' ? 'failed' : 'cancelled';
        }
        break;
    }
  }

  // A bar still open when the run failed or was cancelled was abandoned there.
  if (runEnd?.cancelled) {
    for (const bar of bars.values()) {
      if (!openSegment(bar)) continue;
      close(bar, runEnd);
      bar.status = 'cancelled';
    }
  }
  // Groups end with their children (inner groups first).
  for (const root of roots) settleGroups(root, children);
  const out: TimelineBar[] = [];
  const visit = (bar: Builder, depth: number) => {
    bar.depth = depth;
    out.push(bar);
    for (const child of children.get(bar.id) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return out;
}

export { barAt, eventIndexAt, nestTimeline } from './timeline-view.ts';

/** The bar id of a child run. */
export function childBarId(childRunId: string): string {
  return `child:${childRunId}`;
}

function barKind(stepType: string): TimelineBarKind {
  switch (stepType) {
    case 'model-turn':
      return 'model-turn';
    case 'tool-call':
      return 'tool-call';
    case 'approval':
      return 'approval';
    case 'sleep':
      return 'sleep';
    default:
      return 'step';
  }
}

/**
 * The parent bar of a step: a map item's or loop iteration's group (`each[2]` for
 * `each[2]/summarize` under `each`), made when its first step starts, else the step's parent.
 */
function groupOf(
  bars: Map<string, Builder>,
  stepId: string,
  parentId: string | null,
  event: RunEvent,
  add: (bar: Omit<Builder, 'depth'>) => Builder,
): string | null {
  if (parentId === null) return null;
  const match = /^\[(\d+)\]\//.exec(stepId.slice(parentId.length));
  if (!stepId.startsWith(parentId) || !match) return parentId;
  const id = `${parentId}[${match[1]}]`;
  if (bars.has(id)) return id;
  const container = bars.get(parentId);
  const kind = container?.stepType === 'loop' ? 'loop-iteration' : 'map-item';
  const segments: TimelineSegment[] = [];
  const from = container?.segments[0];
  // A map item waits from the map's start until a worker takes it (concurrency); a loop's
  // iterations follow each other, so nothing queues there.
  if (kind === 'map-item' && from && from.start < event.at) {
    segments.push({
      kind: 'wait',
      reason: 'queued',
      start: from.start,
      end: event.at,
      startSeq: from.startSeq,
      endSeq: event.seq,
    });
  }
  segments.push({ kind: 'work', start: event.at, end: null, startSeq: event.seq, endSeq: null });
  add({
    id,
    stepId: id,
    parentId,
    kind,
    stepType: null,
    label: `${kind === 'loop-iteration' ? 'iteration' : 'item'} ${match[1]}`,
    status: 'running',
    segments,
  });
  return id;
}

function settleGroups(bar: Builder, children: Children): void {
  const mine = children.get(bar.id) ?? [];
  for (const child of mine) settleGroups(child, children);
  if (bar.kind === 'map-item' || bar.kind === 'loop-iteration') settleGroup(bar, mine);
}

/** A group's work ends with its last child; its status is the worst of theirs. */
function settleGroup(group: Builder, children: readonly Builder[]): void {
  const work = group.segments.at(-1);
  if (work?.kind !== 'work') return;
  let end: { at: number; seq: number } | null = null;
  let open = false;
  let status: BarStatus = 'completed';
  for (const child of children) {
    const last = child.segments.at(-1);
    if (!last || last.end === null || last.endSeq === null) open = true;
    else if (!end || last.end > end.at || (last.end === end.at && last.endSeq > end.seq))
      end = { at: last.end, seq: last.endSeq };
    if (RANK[child.status] > RANK[status]) status = child.status;
  }
  group.status = status;
  if (!open && end) {
    work.end = end.at;
    work.endSeq = end.seq;
  }
}

const RANK: Record<BarStatus, number> = {
  completed: 0,
  running: 1,
  retrying: 2,
  waiting: 3,
  cancelled: 4,
  failed: 5,
};

function openSegment(bar: TimelineBar): TimelineSegment | undefined {
  const last = bar.segments.at(-1);
  return last && last.end === null ? last : undefined;
}

function close(bar: TimelineBar, event: { at: number; seq: number }): void {
  for (const segment of bar.segments) {
    // A backoff planned past the step's end (clocks of two processes) ends with the step.
    if (segment.end !== null && segment.end > event.at) segment.end = event.at;
    if (segment.start > event.at) segment.start = event.at;
  }
  const open = openSegment(bar);
  if (open) {
    open.end = event.at;
    open.endSeq = event.seq;
  }
}

/** Ends the open segment at `event` and opens one of `kind` there. */
function switchTo(bar: TimelineBar, event: RunEvent, kind: 'work' | 'wait', reason: WaitReason = 'queued'): void {
  close(bar, event);
  bar.segments.push(
    kind === 'work'
      ? { kind, start: event.at, end: null, startSeq: event.seq, endSeq: null }
      : { kind, reason, start: event.at, end: null, startSeq: event.seq, endSeq: null },
  );
}

/** What a row says: a turn's number, a tool call's tool, else the step's path below its parent. */
function labelOf(stepId: string, parentId: string | null, kind: TimelineBarKind, input: Json | undefined): string {
  const own =
    parentId !== null && stepId.startsWith(parentId) ? stepId.slice(parentId.length).replace(/^[./]/, '') : stepId;
  if (kind === 'model-turn') return `turn ${own.replace(/^llm#/, '')}`;
  if (kind === 'tool-call') {
    const tool = input !== null && typeof input === 'object' && !Array.isArray(input) ? input.tool : undefined;
    return `${typeof tool === 'string' ? tool : 'tool'} (call ${own.replace(/^tool#/, '')})`;
  }
  return own;
}
