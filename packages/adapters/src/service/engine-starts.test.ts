/**
 * A hand-off whose engine is unreachable at the hand-off point: the run's log says it waits for
 * its engine, the start is tried again by itself (no restart, no `runs resume`), and once the
 * engine answers the run is started there once and no longer shows as waiting. Against a fake
 * engine that refuses while it is "down".
 */
import { type Json, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import type { RunBackend, RunHandOver } from '../backends/run-backend.ts';
import { inProcessBackend } from '../inprocess/backend.ts';
import { createRunner, flowOf, ofType, sqliteRunnerHarness, tool, waitFor } from '../inprocess/test-support.ts';
import { RunService } from './run-service.ts';

const { store } = sqliteRunnerHarness();

const agent = flowOf(
  'engine-down-agent',
  [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'count, then answer', tools: ['count'], maxSteps: 4 }],
  { output: '=steps.agent.output.text', handoff: { to: 'temporal', at: 'first-tool-call' } },
);
const fixtures = { agent: [{ toolCalls: [{ tool: 'count', args: {} }] }, { text: 'counted' }] };

/** An engine that refuses every start while `down`, like a Temporal frontend that is not listening. */
function flakyEngine() {
  const state = { down: true, refused: 0, started: [] as RunHandOver[] };
  const backend: RunBackend = {
    name: 'temporal',
    async start(run) {
      if (state.down) {
        state.refused++;
        throw new Error('connect ECONNREFUSED 127.0.0.1:7233');
      }
      if (!state.started.some((started) => started.runId === run.runId)) state.started.push(run);
    },
    decide: async () => undefined,
    cancel: async () => undefined,
    resume: async () => undefined,
    link: () => undefined,
    close: async () => undefined,
  };
  return { backend, state };
}

function wire(engine: RunBackend) {
  let service: RunService | undefined;
  const runner = createRunner(store, {
    tools: { count: tool(async () => 1 as Json) },
    handOff: async (to, run) => {
      await service!.startHandedOff(to, run);
    },
  });
  const inprocess = inProcessBackend(runner);
  service = new RunService({
    store,
    backends: [inprocess, engine],
    hostTools: ['count'],
    // Short waits: the test must not sleep through the product's 0.5–5 s backoff.
    engineRetry: { firstDelayMs: 5, maxDelayMs: 20 },
  });
  return { service, inprocess };
}

describe('an engine unreachable at the hand-off point', () => {
  it('shows the run waiting for its engine, tries again by itself, and starts it once the engine answers', async () => {
    const engine = flakyEngine();
    const { service, inprocess } = wire(engine.backend);
    const { runId } = await service.start({ flow: agent, input: {}, fixtures });
    await inprocess.settled();

    // Refused at the hand-off, and tried again more than once since.
    await waitFor('a second refused start', () => engine.state.refused >= 2);
    const waiting = runState(await store.readEvents(runId));
    expect(waiting.waitingForEngine).toMatchObject({
      engine: 'temporal',
      error: { message: 'connect ECONNREFUSED 127.0.0.1:7233' },
    });
    expect(await store.getRun(runId)).toMatchObject({ status: 'running', backend: 'temporal' });
    expect(engine.state.started).toHaveLength(0);

    engine.state.down = false;
    await waitFor('the engine to take the run', () => engine.state.started.length === 1);
    expect(engine.state.started[0]?.seed?.map((entry) => entry.stepId)).toEqual(['agent/llm#1']);
    const events = await waitFor('run.engine-reached', async () => {
      const all = await store.readEvents(runId);
      return ofType(all, 'run.engine-reached').length > 0 && all;
    });
    expect(ofType(events, 'run.engine-unreachable')).toHaveLength(1);
    expect(runState(events).waitingForEngine).toBeNull();
    await service.close();
  });

  it('at start-up, recoverHandOffs does not wait for an engine still down, and starts the run once it is up', async () => {
    const engine = flakyEngine();
    const first = wire(engine.backend);
    const { runId } = await first.service.start({ flow: agent, input: {}, fixtures });
    await first.inprocess.settled();
    await waitFor('a refused start', () => engine.state.refused >= 1);
    // The process goes away while the engine is still down.
    await first.service.close();

    const next = wire(engine.backend);
    // Returns although the engine refuses: the start is tried again in the background.
    expect(await next.service.recoverHandOffs()).toContain(runId);
    engine.state.down = false;
    await waitFor('the engine to take the run', () => engine.state.started.some((run) => run.runId === runId));
    await waitFor('run.engine-reached', async () =>
      ofType(await store.readEvents(runId), 'run.engine-reached').some((event) => event.engine === 'temporal'),
    );
    await next.service.close();
  });
});
