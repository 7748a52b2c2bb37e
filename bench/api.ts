/**
 * End-to-end event delivery of the API: a run produces 10,000 token deltas and a client
 * subscribed to `runs.events` over real HTTP/SSE (@trpc/client + httpSubscriptionLink +
 * eventsource, as the editor) receives them. Prints throughput and per-delta delay next to the
 * same events read straight from the store (`store.readEvents`) in the same run, with targets
 * and verdicts. Targets are reported, not asserted: the exit code is non-zero only when
 * something failed to run (e.g. a delta lost or duplicated).
 *
 *   pnpm bench:api                       # 1 warm-up + 3 timed rounds of 10,000 deltas (~10 s)
 *   node bench/api.ts --quick            # 1 small warm-up + 1 timed round
 *   node bench/api.ts --per-turn 10      # 10 deltas per event-loop turn instead of 1
 *
 * See bench/README.md ("API benchmark") for what is measured and what is not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../apps/api/src/server/http.ts';
import { type ApiServices, createServices } from '../apps/api/src/server/services.ts';
import type { RunEvent } from '../packages/engine/src/index.ts';
import { type ApiRow, met, percentile, renderApiTable } from './lib/api-table.ts';
import { median } from './lib/measure.ts';
import { type EventsClient, eventsClient } from './lib/sse-client.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    deltas: { type: 'string', default: '10000' },
    rounds: { type: 'string' },
    'per-turn': { type: 'string', default: '1' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log('usage: node bench/api.ts [--quick] [--deltas 10000] [--rounds 3] [--per-turn 1]');
  process.exit(0);
}
const DELTAS = Number(args.deltas);
const ROUNDS = Number(args.rounds ?? (args.quick ? 1 : 3));
const PER_TURN = Number(args['per-turn']);
for (const [name, value] of [
  ['--deltas', DELTAS],
  ['--rounds', ROUNDS],
  ['--per-turn', PER_TURN],
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}
const STEP = 'answer';
const TARGET_RATE = 20_000;
const TARGET_P99_MS = 100;

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Round {
  deltas: number;
  /** SSE messages carrying deltas (the bus coalesces deltas that are ready together). */
  deltaMessages: number;
  /** First delta emitted → last delta received, ms. */
  windowMs: number;
  /** First → last delta emitted (committer.addEvent), ms. */
  emitMs: number;
  /** Per delta: received − emitted, ms, sorted. */
  delays: number[];
  /** Group commits the committer made for the deltas. */
  commits: number;
  /** store.readEvents of the whole run afterwards, ms, and how many events it returned. */
  readMs: number;
  readEvents: number;
}

/**
 * One run: its record, run.started + step.started committed and received (so the client is
 * live and replay is over), then `deltas` step.delta events committed through the runner's group
 * committer exactly as the llm executor's host does, `PER_TURN` per event-loop turn, each text
 * carrying its index and emit time (`performance.now()`; client and server share the process).
 */
async function round(services: ApiServices, client: EventsClient, deltas: number): Promise<Round> {
  const { store, runner } = services;
  const runId = `run_bench_${Math.random().toString(36).slice(2, 10)}`;
  await store.createRun({
    id: runId,
    flowId: 'bench-api',
    flowVersion: 1,
    flow: {
      irVersion: 1,
      id: 'bench-api',
      name: 'API bench',
      steps: [{ id: STEP, type: 'llm', model: 'mock:echo', prompt: 'go' }],
    },
    input: {},
    backend: 'inprocess',
  });
  runner.committer.addEvent(runId, {
    type: 'run.started',
    flowId: 'bench-api',
    flowVersion: 1,
    input: {},
    backend: 'inprocess',
  });
  runner.committer.addEvent(runId, { type: 'step.started', stepId: STEP, stepType: 'llm' });
  await runner.committer.flush();

  let expected = 0;
  let deltaMessages = 0;
  let lastReceive = 0;
  const delays: number[] = [];
  let failure: Error | undefined;
  let started!: () => void;
  const live = new Promise<void>((resolve) => {
    started = resolve;
  });
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const subscription = client.subscribe(runId, {
    onData: (item) => {
      const now = performance.now();
      const event = item.data as RunEvent;
      if (event.type === 'step.started') started();
      if (event.type === 'step.delta') {
        deltaMessages++;
        lastReceive = now;
        for (const piece of event.text.split(';')) {
          if (piece === '') continue;
          const [index, emitted] = piece.split('@');
          if (Number(index) !== expected && !failure) {
            failure = new Error(`delta ${index} arrived where ${expected} was expected (lost or duplicated)`);
          }
          expected++;
          delays.push(now - Number(emitted));
        }
      }
      if (event.type === 'run.completed') finish();
    },
    onError: (error) => fail(error),
    onComplete: () => finish(),
  });
  const timeout = setTimeout(() => fail(new Error('the subscription did not end within 120 s')), 120_000);
  try {
    await live;
    const commitsBefore = runner.committer.commits;
    const emitStart = performance.now();
    let emitEnd = emitStart;
    for (let i = 0; i < deltas; i++) {
      emitEnd = performance.now();
      runner.committer.addEvent(runId, { type: 'step.delta', stepId: STEP, text: `${i}@${emitEnd.toFixed(3)};` });
      if ((i + 1) % PER_TURN === 0) await turn();
    }
    await runner.committer.flush();
    const commits = runner.committer.commits - commitsBefore;
    runner.committer.addEvent(runId, { type: 'step.completed', stepId: STEP, output: 'done' });
    runner.committer.addEvent(runId, { type: 'run.completed', output: 'done' });
    await done;
    if (failure) throw failure;
    if (expected !== deltas) throw new Error(`the client received ${expected} of ${deltas} deltas`);

    const readStart = performance.now();
    const stored = await store.readEvents(runId);
    const readMs = performance.now() - readStart;
    const storedDeltas = stored.filter((event) => event.type === 'step.delta').length;
    if (storedDeltas !== deltas) throw new Error(`the store holds ${storedDeltas} of ${deltas} deltas`);
    return {
      deltas,
      deltaMessages,
      windowMs: lastReceive - emitStart,
      emitMs: emitEnd - emitStart,
      delays: delays.sort((a, b) => a - b),
      commits,
      readMs,
      readEvents: stored.length,
    };
  } finally {
    clearTimeout(timeout);
    subscription.unsubscribe();
  }
}

const loadAtStart = loadavg();

function machine(): string {
  const cpu = cpus();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `machine: ${cpu.length} CPU × ${cpu[0]?.model.trim() ?? 'unknown'}, ${process.platform}/${process.arch}; ` +
      `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end`,
    `node ${process.version}; SQLite store (node:sqlite, WAL) in ${tmpdir()}; server on 127.0.0.1, client in the same process`,
  ].join('\n');
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-api-'));
  const services = await createServices({ dataDir: dir, env: { WEFT_LOG_LEVEL: 'silent' } });
  const server = await startServer({ services, host: '127.0.0.1', port: 0 });
  try {
    const client = await eventsClient(server.url);
    progress(`warm-up: ${Math.min(DELTAS, 2_000)} deltas`);
    await round(services, client, Math.min(DELTAS, 2_000));
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      progress(`round ${i + 1}/${ROUNDS}: ${DELTAS} deltas`);
      rounds.push(await round(services, client, DELTAS));
    }

    const med = (fn: (r: Round) => number) => median(rounds.map(fn));
    const deltaRate = med((r) => r.deltas / (r.windowMs / 1_000));
    const messageRate = med((r) => r.deltaMessages / (r.windowMs / 1_000));
    const readRate = med((r) => r.readEvents / (r.readMs / 1_000));
    const rows: ApiRow[] = [
      {
        id: '1',
        what: 'deltas delivered to the SSE client',
        unit: '/s',
        value: deltaRate,
        baseline: readRate,
        baselineWhat: '(readEvents)',
        target: { atLeast: TARGET_RATE },
      },
      {
        id: '2',
        what: 'SSE messages carrying them (coalesced)',
        unit: '/s',
        value: messageRate,
        baseline: readRate,
        baselineWhat: '(readEvents)',
      },
      { id: '3', what: 'deltas per SSE message', unit: '', value: med((r) => r.deltas / r.deltaMessages) },
      { id: '4', what: 'delay per delta, p50', unit: 'ms', value: med((r) => percentile(r.delays, 50)) },
      {
        id: '5',
        what: 'delay per delta, p99',
        unit: 'ms',
        value: med((r) => percentile(r.delays, 99)),
        target: { below: TARGET_P99_MS },
      },
      { id: '6', what: 'delay per delta, max', unit: 'ms', value: med((r) => r.delays.at(-1)!) },
      {
        id: '7',
        what: 'deltas committed by the producer',
        unit: '/s',
        value: med((r) => r.deltas / (r.emitMs / 1_000)),
      },
      { id: '8', what: 'group commits for the deltas', unit: '', value: med((r) => r.commits) },
    ];

    console.log(
      `\nWeft API event-stream benchmark: ${DELTAS.toLocaleString('en-US')} token deltas per run, ` +
        `${PER_TURN} per event-loop turn; median of ${ROUNDS} timed run(s) after 1 warm-up`,
    );
    console.log(machine());
    console.log('');
    console.log(renderApiTable(rows));
    console.log('');
    console.log(
      [
        'What is measured: step.delta events committed through runner.committer (the group committer the',
        'llm executor feeds; one SQLite transaction per event-loop turn), published on the event bus, sent',
        'by runs.events over SSE, parsed by @trpc/client + eventsource. Each delta text carries its index',
        'and emit time; delay = receive − emit per delta; rate = deltas / (first emit → last receive).',
        'The bus merges deltas of one step that are ready together into one message (row 3), so rows 1',
        'and 2 differ: row 1 counts the run’s deltas (every one arrives, in order, checked), row 2 the',
        'SSE messages the browser handles. Baseline: store.readEvents of the same run afterwards (all',
        'its events in one read, events/s) — the store alone, no bus, no HTTP.',
        'Not measured: the llm executor itself (it batches a model’s chunks every 50 ms before they',
        'become events), a model server, a client in another process or across a network.',
        'Targets are reported, not asserted.',
      ].join('\n'),
    );
    for (const [i, r] of rounds.entries()) {
      console.log(
        `- round ${i + 1}: ${Math.round(r.deltas / (r.windowMs / 1_000))} deltas/s, ${r.deltaMessages} messages, ` +
          `p50 ${percentile(r.delays, 50).toFixed(2)} ms, p99 ${percentile(r.delays, 99).toFixed(2)} ms, ` +
          `${r.commits} commits, readEvents ${r.readEvents} events in ${r.readMs.toFixed(1)} ms`,
      );
    }
    const misses = rows.filter((row) => met(row) === false);
    console.log(
      misses.length === 0 ? '\nall targets met' : `\nmissed targets: ${misses.map((row) => row.id).join(', ')}`,
    );
  } finally {
    await server.close();
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
// EventSource or keep-alive sockets must not hold the process open after the report.
process.exit(0);
