/**
 * Run events rendered compactly, and the one rule for comparing them across backends.
 *
 * An event renders as `type` (run events) or `type:stepId` (step events); a retry adds the
 * attempt, `step.retrying:submit@1`. Deltas are left out: how a model's text is chunked is not
 * part of the contract. Every rendered event is unique within a run (the store keeps one event
 * per fact), which is what makes the rule below well defined.
 *
 * The ordering rule. An expected sequence is a list of patterns:
 * - a string matches exactly one event, in order;
 * - `concurrent(laneA, laneB, …)` matches a contiguous stretch made of exactly the events of its
 *   lanes, in any interleaving that keeps each lane's own order. A lane is itself a pattern
 *   list, so lanes may nest further concurrent groups.
 * Lanes are what a backend runs concurrently: the branches of a `parallel`, the items of a
 * `map`, the tool calls of one agent turn. Everything a lane does is sequential, and nothing
 * outside a `parallel`/`map`/tool batch can happen while it runs (the interpreter awaits the
 * whole region before going on), so any correct backend — in-process `Promise.all`, Inngest
 * parallel steps, Temporal activities — passes the same expectations.
 */
import { eventKey, type RunEvent } from '@weft/engine';

export interface ConcurrentGroup {
  concurrent: EventPattern[][];
}
export type EventPattern = string | ConcurrentGroup;

/** Lanes that run concurrently; each lane is ordered, lanes interleave freely. */
export function concurrent(...lanes: EventPattern[][]): ConcurrentGroup {
  return { concurrent: lanes };
}

/** `run.started`, `step.completed:fan.a/fetch`, `step.retrying:submit@1`; null for deltas. */
export function renderEvent(event: RunEvent): string | null {
  // The event's identity in its run; a retry reads `@attempt` so it stands out in a case.
  if (event.type === 'step.retrying') return `${event.type}:${event.stepId}@${event.attempt}`;
  return eventKey(event);
}

export function renderEvents(events: readonly RunEvent[]): string[] {
  return events.map(renderEvent).filter((line): line is string => line !== null);
}

/** Every event a pattern list names, lanes in their declared order. */
export function flattenPatterns(patterns: readonly EventPattern[]): string[] {
  return patterns.flatMap((pattern) =>
    typeof pattern === 'string' ? [pattern] : pattern.concurrent.flatMap((lane) => flattenPatterns(lane)),
  );
}

export type MatchResult = { ok: true } | { ok: false; message: string };

/** Whether `actual` is exactly what `expected` describes (see the rule above). */
export function matchEvents(expected: readonly EventPattern[], actual: readonly string[]): MatchResult {
  const names = flattenPatterns(expected);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) return { ok: false, message: `the expectation lists '${duplicate}' twice` };
  return matchList(expected, actual, '');
}

function matchList(patterns: readonly EventPattern[], actual: readonly string[], where: string): MatchResult {
  let position = 0;
  for (const pattern of patterns) {
    if (typeof pattern === 'string') {
      if (actual[position] !== pattern) {
        return mismatch(where, position, `expected '${pattern}', got ${show(actual[position])}`);
      }
      position++;
      continue;
    }
    const lanes = pattern.concurrent.map((lane) => ({ lane, names: new Set(flattenPatterns(lane)) }));
    const size = lanes.reduce((total, { names }) => total + names.size, 0);
    const stretch = actual.slice(position, position + size);
    const stray = stretch.filter((name) => !lanes.some(({ names }) => names.has(name)));
    const missing = lanes.flatMap(({ names }) => [...names].filter((name) => !stretch.includes(name)));
    if (stray.length > 0 || missing.length > 0) {
      const parts = [
        missing.length > 0 ? `missing ${missing.map(show).join(', ')}` : '',
        stray.length > 0 ? `unexpected ${stray.map(show).join(', ')}` : '',
      ].filter(Boolean);
      return mismatch(where, position, `concurrent group of ${size} events: ${parts.join('; ')}`);
    }
    for (const [index, { lane, names }] of lanes.entries()) {
      const result = matchList(
        lane,
        stretch.filter((name) => names.has(name)),
        `${where}lane ${index + 1} of the group at event ${position + 1}: `,
      );
      if (!result.ok) return result;
    }
    position += size;
  }
  if (position < actual.length) {
    return mismatch(where, position, `unexpected extra events ${actual.slice(position).map(show).join(', ')}`);
  }
  return { ok: true };
}

function mismatch(where: string, position: number, detail: string): MatchResult {
  return { ok: false, message: `${where}event ${position + 1}: ${detail}` };
}

function show(name: string | undefined): string {
  return name === undefined ? 'the end of the log' : `'${name}'`;
}
