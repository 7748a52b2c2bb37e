/**
 * The in-process side of a hand-off, against a fake target engine that records what it is
 * handed (and, like Temporal and Inngest, starts a run id once): the run stops before its first
 * tool call, the seed holds the model turn done here, the row names the target, the log holds
 * one `run.handed-off` — and a crash on either side of the hand-off's commit neither loses the
 * run nor starts it twice.
 */
import type { Json } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import type { RunBackend, RunHandOver } from '../backends/run-backend.ts';
import { splitJournal } from '../backends/seed.ts';
import { RunService } from '../service/run-service.ts';
import type { CommitBatch, RunStore } from '../store/types.ts';
import { inProcessBackend } from './backend.ts';
import type { HandOffStart } from './handoff.ts';
import { createRunner, flowOf, ofType, sqliteRunnerHarness, tool } from './test-support.ts';

const { store } = sqliteRunnerHarness();

/** An agent that calls `count` once, then answers. */
const agent = flowOf(
  'handoff-agent',
  [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'count, then answer', tools: ['count'], maxSteps: 4 }],
  { output: '=steps.agent.output.text' },
);
const fixtures = {
  agent: [{ toolCalls: [{ tool: 'count', args: { n: 1 } }] }, { text: 'counted' }],
};

/** A target engine that records hand-overs and, keyed by run id, starts each run once. */
function fakeTarget() {
  const handOvers: RunHandOver[] = [];
  const started = new Set<string>();
  const backend: RunBackend = {
    name: 'temporal',
    async start(run) {
      handOvers.push(run);
      started.add(run.runId);
    },
    decide: async () => undefined,
    cancel: async () => undefined,
    resume: async () => undefined,
    link: () => undefined,
    close: async () => undefined,
  };
  return { backend, handOvers, started };
}

/** The product's wiring (apps/api/src/runtime.ts): the runner hands off through the service, late-bound. */
function wire(target: RunBackend, options: { store?: RunStore; handOff?: HandOffStart } = {}) {
  let calls = 0;
  let service: RunService | undefined;
  const runner = createRunner(options.store ?? store, {
    tools: {
      count: tool(async () => {
        calls++;
        return calls as Json;
      }),
    },
    handOff: options.handOff ?? ((to, run) => service!.backend(to).start(run)),
  });
  const inprocess = inProcessBackend(runner);
  service = new RunService({ store: options.store ?? store, backends: [inprocess, target], hostTools: ['count'] });
  return { runner, inprocess, service, toolCalls: () => calls };
}

describe('hand-off at the first tool call', () => {
  it('stops before the tool, seeds the model turn, moves the row, and writes one run.handed-off', async () => {
    const target = fakeTarget();
    const { inprocess, service, toolCalls } = wire(target.backend);
    const { runId } = await service.start({
      flow: agent,
      input: {},
      fixtures,
      handoff: { to: 'temporal', at: 'first-tool-call' },
    });
    await inprocess.settled();
    expect(toolCalls()).toBe(0);
    expect(target.handOvers).toHaveLength(1);
    const [handOver] = target.handOvers;
    expect(handOver?.runId).toBe(runId);
    expect(handOver?.seed?.map((entry) => [entry.stepId, entry.kind])).toEqual([['agent/llm#1', 'model-turn']]);
    // Let go before the start: an engine that claims runs (Inngest's function) finds it free.
    expect(await store.getRun(runId)).toMatchObject({
      status: 'running',
      backend: 'temporal',
      owner: null,
      handoff: { to: 'temporal', at: 'first-tool-call' },
    });
    const events = await store.readEvents(runId);
    expect(ofType(events, 'run.handed-off').map(({ from, to, checkpoint }) => ({ from, to, checkpoint }))).toEqual([
      { from: 'inprocess', to: 'temporal', checkpoint: 'agent/tool#1.0' },
    ]);
    expect(ofType(events, 'run.started')).toHaveLength(1);
    // The seed is kept in the journal, where Inngest's function and a start-up repair read it.
    const { seed } = splitJournal(await store.loadJournal(runId));
    expect([...seed.keys()]).toEqual(['agent/llm#1']);
  });

  it('refuses before recording when the target engine is not configured, naming handoff.to', async () => {
    const { service } = wire(fakeTarget().backend);
    const alone = new RunService({ store, backends: [service.backend('inprocess')], hostTools: ['count'] });
    await expect(alone.start({ flow: agent, input: {}, handoff: { to: 'inngest', at: 'agent' } })).rejects.toThrow(
      /^handoff\.to: inngest is not available/,
    );
  });

  it('refuses a run hand-off point that is neither first-tool-call nor a step of the flow', async () => {
    const { service } = wire(fakeTarget().backend);
    await expect(service.start({ flow: agent, input: {}, handoff: { to: 'temporal', at: 'nowhere' } })).rejects.toThrow(
      /handoff\.at: 'nowhere' is neither "first-tool-call" nor a step/,
    );
  });

  it('fails the run, naming the target, when the runner has no way to hand off', async () => {
    const target = fakeTarget();
    const runner = createRunner(store, { tools: { count: tool(async () => 1) } });
    const service = new RunService({
      store,
      backends: [inProcessBackend(runner), target.backend],
      hostTools: ['count'],
    });
    const { runId } = await service.start({
      flow: agent,
      input: {},
      fixtures,
      handoff: { to: 'temporal', at: 'agent' },
    });
    await (service.backend('inprocess') as ReturnType<typeof inProcessBackend>).settled();
    expect(await store.getRun(runId)).toMatchObject({
      status: 'failed',
      backend: 'inprocess',
      error: {
        name: 'HandOffUnavailableError',
        message: expect.stringMatching(/hands off to temporal at agent\/llm#1/),
      },
    });
    expect(target.handOvers).toHaveLength(0);
  });

  it('ignores a hand-off for a run started on the target engine itself', async () => {
    const target = fakeTarget();
    const { service } = wire(target.backend);
    const { runId } = await service.start({
      flow: { ...agent, handoff: { to: 'temporal', at: 'first-tool-call' } },
      input: {},
      backend: 'temporal',
    });
    expect((await store.getRun(runId))?.handoff).toBeNull();
    expect(target.handOvers[0]?.seed).toBeUndefined();
  });
});

describe('a crash around the hand-off', () => {
  it('after the commit, before the engine accepted: start-up starts it once, and nothing runs twice', async () => {
    const target = fakeTarget();
    // The process dies between moving the row and the engine's start.
    const crashed = wire(target.backend, {
      handOff: async () => {
        throw new Error('killed before the engine accepted the run');
      },
    });
    const { runId } = await crashed.service.start({
      flow: { ...agent, handoff: { to: 'temporal', at: 'first-tool-call' } },
      input: {},
      fixtures,
    });
    await crashed.inprocess.settled();
    expect(await store.getRun(runId)).toMatchObject({ status: 'running', backend: 'temporal' });
    expect(target.handOvers).toHaveLength(0);

    // The next process: its in-process recovery leaves the run alone (it is the target's now)...
    const next = wire(target.backend);
    expect((await next.runner.recover()).map((outcome) => outcome.runId)).not.toContain(runId);
    // ...and the hand-off repair starts it, with the same seed.
    // (Other tests' open handed-off runs share this store: they are started again too, harmlessly.)
    expect(await next.service.recoverHandOffs()).toContain(runId);
    const mine = target.handOvers.filter((run) => run.runId === runId);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.seed?.map((entry) => entry.stepId)).toEqual(['agent/llm#1']);
    expect(crashed.toolCalls() + next.toolCalls()).toBe(0);
    expect(ofType(await store.readEvents(runId), 'run.handed-off')).toHaveLength(1);
    // `weft runs resume` repairs it too: one more start, which a real engine drops (keyed by run id).
    await next.service.resume(runId);
    expect(target.handOvers.filter((run) => run.runId === runId)).toHaveLength(2);
    expect(target.started.has(runId)).toBe(true);
  });

  it('before the commit: the run is still in-process; recovery replays it and hands off once', async () => {
    const target = fakeTarget();
    // A store whose commit of the hand-off fails once, as if the process died right there.
    let failOnce = true;
    const dying = new Proxy(store, {
      get(real, key) {
        if (key === 'commit')
          return async (batches: CommitBatch[]) => {
            if (failOnce && batches.some((batch) => batch.events.some((event) => event.type === 'run.handed-off'))) {
              failOnce = false;
              throw new Error('killed before the hand-off committed');
            }
            return real.commit(batches);
          };
        const value = Reflect.get(real, key);
        return typeof value === 'function' ? value.bind(real) : value;
      },
    });
    const crashed = wire(target.backend, { store: dying });
    const { runId } = await crashed.service.start({
      flow: agent,
      input: {},
      fixtures,
      handoff: { to: 'temporal', at: 'first-tool-call' },
    });
    await crashed.inprocess.settled();
    expect(await store.getRun(runId)).toMatchObject({ status: 'running', backend: 'inprocess', owner: null });
    expect(ofType(await store.readEvents(runId), 'run.handed-off')).toHaveLength(0);

    const next = wire(target.backend);
    await next.runner.recover();
    expect(target.handOvers.map((run) => run.runId)).toEqual([runId]);
    expect(await store.getRun(runId)).toMatchObject({ backend: 'temporal' });
    expect(crashed.toolCalls() + next.toolCalls()).toBe(0);
    const events = await store.readEvents(runId);
    expect(ofType(events, 'run.handed-off')).toHaveLength(1);
    // The model turn ran once: its end is in the log once, not reused.
    expect(ofType(events, 'step.completed').filter((event) => event.stepId === 'agent/llm#1')).toHaveLength(1);
  });
});
