/**
 * bench/debugger.ts's data, written straight into a store (no runner, no backend): the events
 * of a run go through `RunStore.commit` like any backend's, stamped by a fake clock so the runs
 * have believable timings (the store stamps `at` with `Date.now()` at commit).
 *
 * - Step runs (100, 1,000, 10,000 sequential `code` steps; a 200-turn agent loop): the event
 *   sequence is the real interpreter's — `interpret()` over the engine's in-memory host, model
 *   turns answered by the real executor registry from recorded fixture turns, tools and code
 *   answered at once — then committed one event per commit with the fake clock moved between
 *   them (work 2–40 ms per step; model turns 0.4–1.6 s, tool calls 30–300 ms).
 * - The runs list: `count` small llm runs spread over 30 days, 20 flows × 3 versions, mixed
 *   status and backend, some child runs, searchable text in input, output and error, with one
 *   planted rare word (one run) and one common word (~1% of runs).
 * - The same runs list in PostgreSQL (copyRunsToPostgres): the SQLite store's rows, batch-inserted.
 */
import { createRequire } from 'node:module';
import { DatabaseSync, type SQLOutputValue } from 'node:sqlite';
import { createExecutorRegistry } from '../../packages/adapters/src/executors/index.ts';
import type { RunStore } from '../../packages/adapters/src/store/index.ts';
import {
  type Fixtures,
  interpret,
  type Json,
  type RunEventInput,
  validateFlow,
} from '../../packages/engine/src/index.ts';
import { MemoryHost } from '../../packages/engine/src/test-support/memory-host.ts';

/** A seeded generator (mulberry32): the same data every run of the benchmark. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `Date.now()` under the benchmark's control while it writes, so stored times are the story's. */
export class FakeClock {
  now: number;
  readonly #real = Date.now;
  constructor(start: number) {
    this.now = start;
  }
  install(): void {
    Date.now = () => this.now;
  }
  uninstall(): void {
    Date.now = this.#real;
  }
}

export interface StepRun {
  label: string;
  runId: string;
  flowId: string;
  steps: number;
  /** Stored events: the scrubber's length. */
  events: number;
  /** A step the run view can be asked to select. */
  someStep: string;
}

/** `n` sequential code steps, laid out in a column (as the editor saves positions). */
function sequentialDoc(n: number): Json {
  const steps = Array.from({ length: n }, (_, i) => ({
    id: `s${i + 1}`,
    type: 'code',
    source: 'return { n: args.n * 2 };',
    args: { n: i },
  }));
  const positions = Object.fromEntries(steps.map((step, i) => [step.id, { x: 0, y: i * 110 }]));
  return { irVersion: 1, id: `bench-seq-${n}`, name: `${n} sequential steps`, steps, ui: { positions } };
}

/** An llm step runs at most 100 turns (its schema's limit): a longer loop is two that share one conversation. */
const MAX_TURNS_PER_STEP = 100;

function agentSteps(turns: number): { id: string; turns: number }[] {
  const steps: { id: string; turns: number }[] = [];
  for (let left = turns, n = 1; left > 0; left -= MAX_TURNS_PER_STEP, n++)
    steps.push({ id: n === 1 ? 'agent' : `agent${n}`, turns: Math.min(MAX_TURNS_PER_STEP, left) });
  return steps;
}

function agentDoc(turns: number): Json {
  const steps = agentSteps(turns);
  return {
    irVersion: 1,
    id: `bench-agent-${turns}`,
    name: `${turns}-turn agent`,
    tools: {
      lookup: {
        description: 'Look an item up.',
        parameters: { type: 'object', properties: { item: { type: 'number' } } },
        source: 'return { item: args.item, found: true };',
      },
    },
    steps: steps.map((step, i) => ({
      id: step.id,
      type: 'llm',
      model: 'openai:gpt-4o-mini',
      // The later parts continue the conversation where the one before stopped.
      ...(i === 0
        ? { prompt: 'Check every item, one lookup per turn.' }
        : { messages: `=steps.${steps[i - 1]!.id}.output.messages`, prompt: 'Go on.' }),
      tools: ['lookup'],
      maxSteps: step.turns,
    })),
    ui: { positions: Object.fromEntries(steps.map((step, i) => [step.id, { x: 0, y: i * 140 }])) },
  };
}

function agentFixtures(turns: number): Fixtures {
  const fixtures: Fixtures = {};
  let done = 0;
  for (const step of agentSteps(turns)) {
    fixtures[step.id] = Array.from({ length: step.turns }, () => {
      done++;
      return done === turns
        ? { text: `All ${turns - 1} items checked.` }
        : { text: `Turn ${done}: checking item ${done}.`, toolCalls: [{ tool: 'lookup', args: { item: done } }] };
    });
  }
  return fixtures;
}

/** The interpreter's events for `doc`: model turns from fixtures, every other call answered at once. */
async function eventsOf(doc: Json, fixtures: Fixtures | undefined): Promise<{ events: RunEventInput[]; output: Json }> {
  const valid = validateFlow(doc);
  if (!valid.ok) throw new Error(`bench flow is invalid: ${JSON.stringify(valid.errors.slice(0, 3))}`);
  const registry = createExecutorRegistry({});
  const signal = new AbortController().signal;
  const host: MemoryHost = new MemoryHost({
    execute: (call, stepId) => {
      if (call.kind !== 'model-turn') return { ok: true, step: stepId };
      return registry.execute(call, {
        signal,
        runId: 'bench',
        stepId,
        emitDelta: (text: string) => host.emit({ type: 'step.delta', stepId, text }),
      });
    },
  });
  const output = await interpret(valid.flow, {}, host, fixtures ? { fixtures } : {});
  return { events: host.events, output };
}

/** How long the fake clock moves before an event: queueing before a start, work before an end. */
function gapBefore(event: RunEventInput, next: () => number): number {
  const id = 'stepId' in event ? event.stepId : '';
  if (event.type === 'step.started') return 1 + Math.floor(next() * 3);
  if (event.type === 'step.delta') return 20 + Math.floor(next() * 60);
  if (event.type !== 'step.completed' && event.type !== 'step.failed') return 1;
  if (/\/llm#\d+$/.test(id)) return 400 + Math.floor(next() * 1200);
  if (/\/tool#/.test(id)) return 30 + Math.floor(next() * 270);
  return 2 + Math.floor(next() * 38);
}

async function writeStepRun(
  store: RunStore,
  clock: FakeClock,
  doc: Json & { id: string; name: string },
  fixtures: Fixtures | undefined,
  runId: string,
): Promise<number> {
  const next = random(runId.length * 7919);
  const saved = await store.flows.save(doc);
  const { events, output } = await eventsOf(saved.doc, fixtures);
  await store.createRun({
    id: runId,
    flowId: doc.id,
    flowVersion: saved.version,
    flow: saved.doc,
    input: {},
    backend: 'inprocess',
    fixtures: (fixtures ?? null) as Json,
  });
  const all: RunEventInput[] = [
    { type: 'run.started', flowId: doc.id, flowVersion: saved.version, input: {}, backend: 'inprocess' },
    ...events,
    { type: 'run.completed', output },
  ];
  for (const event of all) {
    clock.now += gapBefore(event, next);
    await store.commit([{ runId, journal: [], events: [event] }]);
  }
  await store.updateRun(runId, { status: 'completed', output });
  return all.length;
}

/** The runs the run view is measured on. */
export async function writeStepRuns(store: RunStore, clock: FakeClock, sizes: readonly number[], turns: number) {
  const runs: StepRun[] = [];
  for (const n of sizes) {
    const doc = sequentialDoc(n) as Json & { id: string; name: string };
    const runId = `run_bench_seq_${n}`;
    const events = await writeStepRun(store, clock, doc, undefined, runId);
    runs.push({ label: `${n.toLocaleString('en-US')} steps`, runId, flowId: doc.id, steps: n, events, someStep: 's1' });
    clock.now += 60_000;
  }
  const doc = agentDoc(turns) as Json & { id: string; name: string };
  const runId = `run_bench_agent_${turns}`;
  const events = await writeStepRun(store, clock, doc, agentFixtures(turns), runId);
  runs.push({ label: `${turns}-turn agent`, runId, flowId: doc.id, steps: turns * 2, events, someStep: 'agent' });
  return runs;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'si', 'pe', 'da', 'go', 'hu', 'ze', 'bi', 'fa', 'jo'];
const MODELS = [
  'openai:gpt-4o-mini',
  'openai:gpt-4o-mini',
  'anthropic:claude-3-5-haiku-latest',
  'local:llama3',
  'mock:echo',
];
export const RARE_WORD = 'zanzibarite';
export const COMMON_WORD = 'quarterly';

export interface ListData {
  count: number;
  /** The one run with RARE_WORD in its input. */
  rareRunId: string;
  /** Runs with COMMON_WORD, and the newest top-level one (the first hit of a search for it). */
  commonRuns: number;
  newestCommonRunId: string;
}

/** `count` runs for the runs screen, oldest first, spread over the 30 days before `end`. */
export async function writeRunList(
  store: RunStore,
  clock: FakeClock,
  count: number,
  end: number,
  progress: (done: number) => void,
): Promise<ListData> {
  const next = random(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const vocabulary = Array.from({ length: 4000 }, () => pick(SYLLABLES) + pick(SYLLABLES) + pick(SYLLABLES));
  const sentence = (words: number) => Array.from({ length: words }, () => pick(vocabulary)).join(' ');
  const flows: { id: string; versions: { version: number; doc: Json }[] }[] = [];
  for (let f = 0; f < 20; f++) {
    const id = `list-flow-${f + 1}`;
    const versions = [];
    for (let v = 0; v < 3; v++) {
      const doc = {
        irVersion: 1,
        id,
        name: `List flow ${f + 1}`,
        input: { type: 'object', properties: { question: { type: 'string' } } },
        steps: [
          { id: 'ask', type: 'llm', model: MODELS[f % MODELS.length]!, prompt: `v${v + 1}: {{ input.question }}` },
        ],
      };
      const saved = await store.flows.save(doc);
      versions.push({ version: saved.version, doc: saved.doc });
    }
    flows.push({ id, versions });
  }
  const start = end - 30 * 86_400_000;
  const rareAt = Math.floor(count / 2);
  let commonRuns = 0;
  let rareRunId = '';
  let newestCommonRunId = '';
  const recent: string[] = [];
  for (let i = 0; i < count; i++) {
    const flow = flows[Math.floor(next() * flows.length)]!;
    const { version, doc } = flow.versions[Math.min(2, Math.floor(next() * 3.3))]!;
    const model = MODELS[Number(flow.id.split('-').at(-1)) % MODELS.length]!;
    const id = `run_${Math.floor(next() * 2 ** 48)
      .toString(16)
      .padStart(12, '0')}${i.toString(16).padStart(8, '0')}`;
    const roll = next();
    // The newest few are still running, as on a live system.
    const status = i >= count - 5 ? 'running' : roll < 0.08 ? 'failed' : roll < 0.1 ? 'cancelled' : 'completed';
    const backend = roll > 0.92 ? 'temporal' : roll > 0.85 ? 'inngest' : 'inprocess';
    const common = next() < 0.01;
    if (common) commonRuns++;
    const question = `${sentence(8 + Math.floor(next() * 12))}${common ? ` ${COMMON_WORD}` : ''}${i === rareAt ? ` ${RARE_WORD}` : ''}`;
    if (i === rareAt) rareRunId = id;
    const answer = sentence(12 + Math.floor(next() * 20));
    const parent = recent.length > 0 && next() < 0.05 && i !== rareAt ? pick(recent) : null;
    if (common && !parent) newestCommonRunId = id;

    clock.now = start + Math.floor(((end - start) * i) / count);
    await store.createRun({
      id,
      flowId: flow.id,
      flowVersion: version,
      flow: doc,
      input: { question },
      backend,
      ...(parent ? { parentRunId: parent, parentStepId: 'ask' } : {}),
    });
    const input = { model, prompt: question };
    await store.commit([
      {
        runId: id,
        journal: [],
        events: [
          { type: 'run.started', flowId: flow.id, flowVersion: version, input: { question }, backend },
          { type: 'step.started', stepId: 'ask', stepType: 'llm', input },
          { type: 'step.started', stepId: 'ask/llm#1', stepType: 'model-turn', parentId: 'ask' },
        ],
      },
    ]);
    if (status === 'running') continue;
    clock.now += 300 + Math.floor(next() * 4000);
    const usage = { inputTokens: 50 + Math.floor(next() * 2000), outputTokens: 10 + Math.floor(next() * 500) };
    const usageOut = { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
    const output = { text: answer };
    const error = status === 'failed' ? { name: 'ModelError', message: `provider refused: ${sentence(6)}` } : null;
    const events: RunEventInput[] =
      status === 'completed'
        ? [
            { type: 'step.completed', stepId: 'ask/llm#1', output, usage: usageOut },
            { type: 'step.completed', stepId: 'ask', output },
            { type: 'run.completed', output },
          ]
        : status === 'failed'
          ? [
              { type: 'step.failed', stepId: 'ask/llm#1', error: error! },
              { type: 'step.failed', stepId: 'ask', error: error! },
              { type: 'run.failed', error: error! },
            ]
          : [{ type: 'run.cancelled', reason: 'cancelled by a person' }];
    await store.commit([{ runId: id, journal: [], events }]);
    await store.updateRun(id, {
      status,
      ...(status === 'completed' ? { output } : {}),
      ...(error ? { error } : {}),
    });
    if (!parent) recent.push(id);
    if (recent.length > 50) recent.shift();
    if ((i + 1) % 5000 === 0) progress(i + 1);
  }
  return { count, rareRunId, commonRuns, newestCommonRunId };
}

type PgClient = {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
};
// `pg` is a dependency of @weft/adapters, not of the workspace root (as in bench/lib/postgres.ts).
const pg = createRequire(new URL('../../packages/adapters/package.json', import.meta.url))('pg') as {
  Client: new (config: { connectionString: string }) => PgClient;
};

/** What the runs screen reads (the run log is laid out differently per dialect and not copied). */
const COPIED_TABLES = ['flows', 'flow_versions', 'runs', 'run_usage'] as const;

/**
 * The same runs in PostgreSQL: the rows the SQLite store wrote (above) copied into a PostgreSQL
 * store whose schema `openStore` has made, as bench/debugger-store.ts fills it — one
 * `INSERT … SELECT FROM unnest(arrays)` per batch, the store's triggers indexing as rows go in —
 * then ANALYZE (autovacuum would). Seconds, where writing them through `commit` would take many
 * minutes. Returns the rows copied per table.
 */
export async function copyRunsToPostgres(sqlitePath: string, pgUrl: string, batch = 5_000) {
  const sqlite = new DatabaseSync(sqlitePath, { readOnly: true });
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  const copied: Record<string, number> = {};
  try {
    for (const table of COPIED_TABLES) {
      const types = new Map(
        (
          await client.query(
            `select column_name, udt_name from information_schema.columns
             where table_schema = current_schema() and table_name = $1 and is_generated = 'NEVER'`,
            [table],
          )
        ).rows.map((row) => [String(row.column_name), String(row.udt_name)]),
      );
      const columns = (sqlite.prepare('select name from pragma_table_info(?)').all(table) as { name: string }[])
        .map((column) => column.name)
        .filter((name) => types.has(name));
      const insert = `insert into ${table} (${columns.join(', ')}) select * from unnest(${columns
        .map((name, i) => `$${i + 1}::${types.get(name)}[]`)
        .join(', ')})`;
      let rows: Record<string, SQLOutputValue>[] = [];
      const flush = async () => {
        if (rows.length === 0) return;
        await client.query(
          insert,
          columns.map((name) => rows.map((row) => row[name] ?? null)),
        );
        copied[table] = (copied[table] ?? 0) + rows.length;
        rows = [];
      };
      for (const row of sqlite.prepare(`select ${columns.join(', ')} from ${table}`).iterate()) {
        rows.push(row as Record<string, SQLOutputValue>);
        if (rows.length >= batch) await flush();
      }
      await flush();
    }
    await client.query('analyze');
  } finally {
    await client.end();
    sqlite.close();
  }
  return copied;
}
