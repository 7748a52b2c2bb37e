/**
 * `weft runs show <runId>`: the run's stored events and the state `runState` folds from them —
 * the same fold the live canvas and the replay scrubber draw — plus its child runs and any
 * approval it waits for, with the command that resolves it. `--at <seq>` shows the state after
 * one event instead, `--timeline` the run's timeline (show-debug.ts).
 */
import { costsOfRun } from '@weft/adapters/service';
import type { RunEvent } from '@weft/engine';
import { isJsonObject, type RunState, runState, type StepState, timelineOf } from '@weft/engine';
import { type Command, parseCommandArgs } from '../../args.ts';
import { openStoreFromEnv } from '../../context.ts';
import {
  EXIT,
  formatDateTime,
  formatDuration,
  formatTime,
  plural,
  preview,
  printJsonLine,
  redact,
  stdout,
  table,
  UsageError,
} from '../../output.ts';
import { collectEvents, connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { getFullRun } from '../../remote-pages.ts';
import { approveCommand, getRunOrFail, pendingApprovals, runTree, shellQuote } from '../../tree.ts';
import { colourStatus } from './list.ts';
import { checkPosition, printStateAt, printTimeline, remoteEvents } from './show-debug.ts';

const usage = `Usage: weft runs show <runId> [--at <seq> | --timeline] [--json]

Shows a run's events (seq, time, type, step) and its final state: per step the status,
attempts, duration, output preview and error; waiting approvals with how to resolve them.

Options:
  --at <seq>    the state right after event <seq> (0: before the first), as the scrubber shows it
  --timeline    the timeline: one row per step, model turn, tool call, map item, loop iteration
                and child run, with its start (from the run's start), duration, time waited,
                attempts, tokens and cost
  --json        print { "run", "events", "state", "children", "approvals" } as one JSON line
                (with --at: { "run", "seq", "event", "state" }; with --timeline: { "run", "bars", "costs" })
${SERVER_USAGE}
  -h, --help    show this help`;

export const runsShowCommand: Command = {
  name: 'show',
  summary: "show a run's events and state",
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { json: { type: 'boolean' }, at: { type: 'string' }, timeline: { type: 'boolean' }, ...SERVER_OPTION },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const { at: atText, timeline, json } = args.values;
    if (atText !== undefined && !/^\d+$/.test(atText)) {
      throw new UsageError(`--at must be an event's seq (a non-negative integer), got '${atText}'`, usage);
    }
    if (atText !== undefined && timeline === true)
      throw new UsageError('--at and --timeline are separate views', usage);
    const view: View =
      atText !== undefined
        ? { kind: 'at', seq: Number(atText) }
        : timeline === true
          ? { kind: 'timeline' }
          : { kind: 'full' };
    const server = serverUrl(args.values.server);
    if (server) {
      return view.kind === 'full'
        ? showRemote(server, args.positionals[0]!, json === true)
        : showRemoteView(server, args.positionals[0]!, view, json === true);
    }
    const store = await openStoreFromEnv();
    try {
      const run = await getRunOrFail(store, args.positionals[0]!);
      const events = await store.readEvents(run.id);
      if (view.kind === 'at') {
        checkPosition(run.id, view.seq, events);
        const state = runState(events.filter((event) => event.seq <= view.seq));
        printStateAt(run, view.seq, events, state, stepRow, json === true);
        return EXIT.ok;
      }
      if (view.kind === 'timeline') {
        printTimeline(run, timelineOf(events), await costsOfRun(runState(events), run.fixtures), json === true);
        return EXIT.ok;
      }
      const state = runState(events);
      const tree = await runTree(store, run);
      const children = tree.filter((child) => child.parentRunId === run.id);
      const waiting = await pendingApprovals(store, tree);
      if (json === true) {
        const { flow: _flow, owner: _owner, ...record } = run;
        printJsonLine({
          run: record,
          events,
          state,
          children: children.map((c) => ({ runId: c.id, stepId: c.parentStepId, flowId: c.flowId, status: c.status })),
          approvals: await store.listApprovals({ runId: run.id }),
          waiting: waiting.map((a) => ({ ...a, command: approveCommand(a.runId, a.stepId) })),
        });
        return EXIT.ok;
      }
      const bold = (text: string) => stdout.style('bold', text);
      const ended = state.endedAt ?? (run.status === 'waiting' || run.status === 'running' ? null : run.updatedAt);
      stdout.write(`${bold('run')}      ${run.id}\n`);
      stdout.write(`${bold('flow')}     ${run.flowId}@${run.flowVersion}\n`);
      stdout.write(`${bold('status')}   ${colourStatus(run.status)}\n`);
      stdout.write(`${bold('backend')}  ${run.backend}\n`);
      if (state.handoff)
        stdout.write(
          `${bold('handoff')}  from ${state.handoff.from} to ${state.handoff.to} at ${state.handoff.checkpoint}\n`,
        );
      else if (run.handoff) stdout.write(`${bold('handoff')}  to ${run.handoff.to} at ${run.handoff.at} (not yet)\n`);
      writeEngineWait(state, bold);
      if (run.parentRunId) stdout.write(`${bold('parent')}   ${run.parentRunId} (step ${run.parentStepId})\n`);
      stdout.write(`${bold('started')}  ${formatDateTime(run.createdAt)}\n`);
      stdout.write(`${bold('duration')} ${formatDuration(ended === null ? null : ended - run.createdAt)}\n`);
      stdout.write(`${bold('input')}    ${preview(run.input, 100)}\n`);
      if (run.status === 'completed') stdout.write(`${bold('output')}   ${preview(run.output, 100)}\n`);
      if (run.error) {
        const where = run.error.stepId ? ` (step ${run.error.stepId})` : '';
        stdout.write(`${bold('error')}    ${stdout.style('red', redact(run.error.message))}${where}\n`);
      }
      if (run.fixtures) stdout.write(`${bold('fixtures')} recorded model turns replace providers in this run\n`);

      stdout.write(`\n${bold('events')}\n`);
      stdout.write(table(['SEQ', 'TIME', 'TYPE', 'STEP', 'DETAIL'], eventRows(events), bold));

      stdout.write(`\n${bold('steps')}\n`);
      const rows = state.order.map((id) => stepRow(state.steps[id]!));
      stdout.write(
        rows.length > 0
          ? table(['STEP', 'TYPE', 'STATUS', 'ATTEMPTS', 'DURATION', 'OUTPUT / ERROR'], rows, bold)
          : '  (none)\n',
      );
      if (children.length > 0) {
        stdout.write(`\n${bold('child runs')}\n`);
        const childRows = children.map((c) => [
          c.parentStepId ?? '',
          c.id,
          `${c.flowId}@${c.flowVersion}`,
          colourStatus(c.status),
        ]);
        stdout.write(table(['STEP', 'RUN', 'FLOW', 'STATUS'], childRows, bold));
      }
      if (waiting.length > 0) {
        stdout.write(`\n${bold('waiting for approval')}\n`);
        for (const approval of waiting) {
          stdout.write(
            `  ${approval.stepId}: ${JSON.stringify(approval.prompt)}\n    ${approveCommand(approval.runId, approval.stepId)}\n`,
          );
        }
      } else if (run.status === 'running' || run.status === 'waiting') {
        stdout.write(`\n  not finished; if no process is executing it: weft runs resume ${shellQuote(run.id)}\n`);
      }
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
};

/** One row per event; consecutive token deltas of one step are folded into one row. */
function eventRows(events: readonly RunEvent[]): string[][] {
  const rows: string[][] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.type === 'step.delta') {
      let j = i;
      let text = event.text;
      while (events[j + 1]?.type === 'step.delta' && (events[j + 1] as typeof event).stepId === event.stepId) {
        j++;
        text += (events[j] as typeof event).text;
      }
      const seq = j > i ? `${event.seq}-${events[j]!.seq}` : String(event.seq);
      rows.push([seq, formatTime(event.at), 'step.delta', event.stepId, JSON.stringify(preview(text, 50))]);
      i = j;
      continue;
    }
    rows.push([
      String(event.seq),
      formatTime(event.at),
      event.type,
      'stepId' in event ? event.stepId : '',
      detail(event),
    ]);
  }
  return rows;
}

function detail(event: RunEvent): string {
  switch (event.type) {
    case 'run.started':
      return `${event.flowId}@${event.flowVersion} on ${event.backend}`;
    case 'step.started':
      return event.stepType;
    case 'step.completed':
      return preview(event.output, 50);
    case 'step.failed':
    case 'run.failed':
      return redact(preview(event.error.message, 70));
    case 'step.retrying':
      return `attempt ${event.attempt}: ${redact(preview(event.error.message, 50))}`;
    case 'approval.requested':
      return JSON.stringify(preview(event.prompt, 50));
    case 'approval.resolved':
      return `${event.timedOut ? 'timed out, ' : ''}${event.approved ? 'approved' : 'rejected'}${event.by ? ` by ${event.by}` : ''}`;
    case 'child.started':
      return `${event.childRunId} (${event.flowId})`;
    case 'run.handed-off':
      return `${event.from} → ${event.to} at ${event.checkpoint}`;
    case 'run.engine-unreachable':
      return `${event.engine}: ${redact(preview(event.error.message, 60))}`;
    case 'run.engine-reached':
      return event.engine;
    case 'run.completed':
      return preview(event.output, 50);
    case 'run.cancelled':
      return event.reason ?? '';
    case 'step.delta':
      return '';
  }
}

/** A handed-off run whose engine did not answer yet: which, since when, why (the runner keeps trying). */
function writeEngineWait(state: Pick<RunState, 'waitingForEngine'>, bold: (text: string) => string): void {
  const wait = state.waitingForEngine;
  if (!wait) return;
  const since = wait.since === null ? '' : ` since ${formatTime(wait.since)}`;
  stdout.write(
    `${bold('waiting')}  ${stdout.style('yellow', `for its engine: ${wait.engine} unreachable${since}`)} (${redact(preview(wait.error.message, 80))}); started as soon as it answers\n`,
  );
}

function stepRow(step: StepState): string[] {
  const result = step.error
    ? stdout.style('red', redact(preview(step.error.message, 60)))
    : step.approval && step.approval.approved === null
      ? `waiting: ${JSON.stringify(preview(step.approval.prompt, 40))}`
      : preview(outputPreview(step), 60);
  return [step.stepId, step.stepType, step.status, String(step.attempts), formatDuration(step.durationMs), result];
}

/** An llm step or model turn by its text (or object), not its whole conversation. */
function outputPreview(step: StepState): unknown {
  const output = step.output;
  if ((step.stepType === 'llm' || step.stepType === 'model-turn') && isJsonObject(output)) {
    const calls = Array.isArray(output.toolCalls) ? output.toolCalls.length : 0;
    const text = output.object ?? output.text ?? '';
    return calls > 0 && step.stepType === 'model-turn' ? `→ ${plural(calls, 'tool call')} ${preview(text, 40)}` : text;
  }
  return output;
}

type View = { kind: 'full' } | { kind: 'at'; seq: number } | { kind: 'timeline' };

/** `--at` / `--timeline` with `--server`: the events a page at a time, the state and costs from the server. */
async function showRemoteView(server: string, runId: string, view: Exclude<View, { kind: 'full' }>, json: boolean) {
  const remote = connect(server);
  const { run } = await remote.call((c) => c.runs.get.query({ runId }));
  const events = await remoteEvents(remote, run.id);
  if (view.kind === 'at') {
    checkPosition(run.id, view.seq, events);
    const state = await remote.call((c) => c.runs.stateAt.query({ runId: run.id, seq: view.seq }));
    printStateAt(run, view.seq, events, state, (step) => stepRow(step), json);
  } else {
    printTimeline(run, timelineOf(events), await remote.call((c) => c.runs.costs.query({ runId: run.id })), json);
  }
  return EXIT.ok;
}

/** `show --server`: runs.get (record + folded state) and the events replayed over the subscription. */
async function showRemote(server: string, runId: string, json: boolean): Promise<number> {
  const remote = connect(server);
  const { run, state } = await getFullRun(remote, runId);
  const events = await collectEvents(remote, run.id);
  const waiting = (await remote.call((c) => c.approvals.list.query({ runId: run.id }))).map((a) => ({
    runId: a.runId,
    stepId: a.stepId,
    prompt: a.prompt,
  }));
  if (json) {
    const { flow: _flow, ...record } = run;
    printJsonLine({ run: record, events, state, waiting });
    return EXIT.ok;
  }
  const bold = (text: string) => stdout.style('bold', text);
  stdout.write(`${bold('run')}      ${run.id}\n`);
  stdout.write(`${bold('flow')}     ${run.flowId}@${run.flowVersion}\n`);
  stdout.write(`${bold('status')}   ${colourStatus(run.status)}\n`);
  stdout.write(`${bold('server')}   ${server}\n`);
  stdout.write(`${bold('started')}  ${formatDateTime(run.createdAt)}\n`);
  writeEngineWait(state, bold);
  if (run.status === 'completed') stdout.write(`${bold('output')}   ${preview(run.output, 100)}\n`);
  if (run.error) stdout.write(`${bold('error')}    ${stdout.style('red', redact(run.error.message))}\n`);
  stdout.write(`\n${bold('events')}\n`);
  stdout.write(table(['SEQ', 'TIME', 'TYPE', 'STEP', 'DETAIL'], eventRows(events), bold));
  stdout.write(`\n${bold('steps')}\n`);
  const rows = state.order.map((id) => stepRow(state.steps[id] as StepState));
  stdout.write(
    rows.length > 0
      ? table(['STEP', 'TYPE', 'STATUS', 'ATTEMPTS', 'DURATION', 'OUTPUT / ERROR'], rows, bold)
      : '  (none)\n',
  );
  for (const approval of waiting) {
    stdout.write(`\n  waiting: ${approval.stepId}: ${JSON.stringify(approval.prompt)}\n`);
  }
  return EXIT.ok;
}
