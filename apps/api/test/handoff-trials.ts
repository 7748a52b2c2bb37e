/**
 * Hand-off under crashes, as a user runs it (handoff-restart-temporal/-inngest.test.ts): a
 * `weft serve` whose engine runs in it (Temporal's worker, Inngest's function) starts an agent
 * run in-process with `handoff: <engine> at first-tool-call`, and is SIGKILLed at a random moment
 * around the hand-off — while the first model turn streams in-process (a recorded turn paced by
 * `streamMs`), during the hand-off's commit and start, or while the engine runs the tool — then a
 * new server starts on the same data. In every trial the run must end `completed` exactly once
 * with the output of an uninterrupted run, in one log (one run.started, one run.handed-off, one
 * run.completed), and the model turn done in-process is never the engine's call.
 *
 * The tool (an http flow tool POSTing to a counting server here) runs exactly once — unless the
 * engine ran it again: a server killed after the request left but before the call's completion
 * reached the engine is retried there (Temporal activities and Inngest steps are at least once),
 * and only then may the count be 2. Temporal's history shows that second attempt. Inngest learns
 * a step's id only from the response the killed server never sent, so its trace cannot show the
 * lost attempt: there a count of 2 is allowed when the kill came after the hand-off was stored
 * (the engine could be running the tool), never before. The hand-off itself never runs the tool:
 * it stops before it, and the seed carries only calls that completed in-process.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { Json } from '@weft/engine';
import { expect } from 'vitest';
import type { FlowDoc } from '../src/server/test-support.ts';
import { client, type Server } from './serve-process.ts';

/** How long the first model turn streams in-process: the window before the hand-off. */
const STREAM_MS = 600;
/** Kills land anywhere from the start to well after the hand-off. */
const KILL_WITHIN_MS = 1_000;

export const handOffFlow: FlowDoc = {
  irVersion: 1,
  id: 'handoff-crash',
  name: 'Hands off at its first tool call',
  input: { type: 'object', properties: { base: { type: 'string' }, key: { type: 'string' } } },
  steps: [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'Count, then answer.', tools: ['hit'], maxSteps: 4 }],
  tools: {
    hit: {
      description: 'counts a hit',
      parameters: { type: 'object', properties: {} },
      http: { method: 'POST', url: '{{ input.base }}/hit/{{ input.key }}' },
    },
  },
  output: { text: '=steps.agent.output.text', tool: '=steps.agent.output.toolCalls[0].result.body' },
} as unknown as FlowDoc;

const fixtures: Record<string, Json[]> = {
  agent: [
    {
      text: 'Let me count that for you, one word at a time.',
      toolCalls: [{ tool: 'hit', args: {} }],
      streamMs: STREAM_MS,
    },
    { text: 'Counted.' },
  ],
};

/** Counts tool executions per run key. */
export interface ToolCounter {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startToolCounter(): Promise<ToolCounter> {
  const hits = new Map<string, number>();
  const server: HttpServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = (req.url ?? '').replace(/^\/hit\//, '');
      hits.set(key, (hits.get(key) ?? 0) + 1);
      // The same answer for every run's execution: outputs compare across runs.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ counted: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface TrialOptions {
  engine: 'temporal' | 'inngest';
  trials: number;
  counter: ToolCounter;
  /** Starts a `weft serve` on the shared data (and, for Inngest, the same port). */
  start(name: string): Promise<Server>;
  /** Per checkpoint the engine ran as its own call: how many attempts it made. */
  engineAttempts(runId: string): Promise<Map<string, number>>;
  /** Whether `engineAttempts` counts an attempt whose response died with the server (see above). */
  recordsLostAttempts: boolean;
}

type Api = ReturnType<typeof client>;

async function runToEnd(api: Api, runId: string) {
  await expect
    .poll(async () => (await api.runs.get.query({ runId })).run.status, { timeout: 90_000, interval: 200 })
    .toBe('completed');
  return (await api.runs.get.query({ runId })).run;
}

/** Where a run stood when the server was killed, from its state just before. */
function stage(state: { handoff: unknown; status: string }): string {
  if (state.status === 'completed') return 'completed';
  return state.handoff ? `handed off, on the engine` : 'in-process';
}

/** Runs the trials; returns one line per trial (when the kill landed, tool executions). */
export async function crashTrials(options: TrialOptions): Promise<string[]> {
  const { engine, counter } = options;
  let server = await options.start('reference');
  let api = client(server);
  await api.flows.create.mutate({ doc: handOffFlow });
  const handoff = { to: engine, at: 'first-tool-call' };
  const input = (key: string) => ({ base: counter.url, key });

  // The uninterrupted run: what every trial must end with.
  const reference = await api.runs.start.mutate({
    flowId: handOffFlow.id,
    input: input('reference'),
    fixtures,
    handoff,
  });
  const expected = await runToEnd(api, reference.runId);
  expect(expected.backend).toBe(engine);
  expect(counter.hits.get('reference')).toBe(1);

  const report: string[] = [];
  for (let trial = 1; trial <= options.trials; trial++) {
    const key = `trial-${trial}`;
    const { runId } = await api.runs.start.mutate({ flowId: handOffFlow.id, input: input(key), fixtures, handoff });
    const killAfterMs = Math.floor(Math.random() * KILL_WITHIN_MS);
    await new Promise((resolve) => setTimeout(resolve, killAfterMs));
    const before = stage((await api.runs.get.query({ runId })).state);
    const killedAt = Date.now();
    server.child.kill('SIGKILL');
    if (server.child.exitCode === null && server.child.signalCode === null)
      await new Promise((resolve) => server.child.once('exit', resolve));
    server = await options.start(`after-${trial}`);
    api = client(server);

    const run = await runToEnd(api, runId);
    const events = (await api.runs.eventsPage.query({ runId, limit: 5000 })).events;
    expect(run.output, `trial ${trial}: output`).toEqual(expected.output);
    expect(run.backend, `trial ${trial}: backend`).toBe(engine);
    const count = (type: string) => events.filter((event) => event.type === type).length;
    expect([count('run.started'), count('run.handed-off'), count('run.completed')], `trial ${trial}: log`).toEqual([
      1, 1, 1,
    ]);
    const attempts = await options.engineAttempts(runId);
    // The model turn before the hand-off is never the engine's call.
    expect(attempts.has('agent/llm#1'), `trial ${trial}: agent/llm#1 run by ${engine}`).toBe(false);
    const toolAttempts = attempts.get('agent/tool#1.0') ?? 0;
    const executions = counter.hits.get(key) ?? 0;
    const handedOffAt = events.find((event) => event.type === 'run.handed-off')?.at;
    const killedOnEngine = handedOffAt !== undefined && handedOffAt <= killedAt;
    const mayRepeat = toolAttempts > 1 || (!options.recordsLostAttempts && killedOnEngine);
    expect(
      executions,
      `trial ${trial}: tool executions (engine attempts ${toolAttempts}, killed ${killedOnEngine ? 'after' : 'before'} the hand-off was stored)`,
    ).toBe(mayRepeat ? Math.min(Math.max(executions, 1), 2) : 1);
    report.push(`trial ${trial}: killed at ${killAfterMs} ms (${before}), tool ×${executions}`);
  }
  return report;
}
