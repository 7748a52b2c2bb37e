/**
 * A sleep finished in-process before a hand-off is part of the seed (with its wake-up time), and
 * a host answering from a seed sleeps only what is left of it: a finished sleep not at all. The
 * engines' hosts are held to the same by the conformance hand-off cases (conformance/handoff.ts).
 */
import type { Json } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import type { RunBackend, RunHandOver } from '../backends/run-backend.ts';
import { RunService } from '../service/run-service.ts';
import { inProcessBackend } from './backend.ts';
import { createRunner, flowOf, ofType, sqliteRunnerHarness, tool } from './test-support.ts';

const { store } = sqliteRunnerHarness();

function wire() {
  const handOvers: RunHandOver[] = [];
  const target: RunBackend = {
    name: 'temporal',
    async start(run) {
      handOvers.push(run);
    },
    decide: async () => undefined,
    cancel: async () => undefined,
    resume: async () => undefined,
    link: () => undefined,
    close: async () => undefined,
  };
  let service: RunService | undefined;
  const runner = createRunner(store, {
    tools: { count: tool(async () => 1 as Json) },
    handOff: (to, run) => service!.backend(to).start(run),
  });
  const inprocess = inProcessBackend(runner);
  service = new RunService({ store, backends: [inprocess, target], hostTools: ['count'] });
  return { service, inprocess, handOvers };
}

describe('sleeps across a hand-off', () => {
  it('the seed handed to the engine holds a sleep finished in-process, with its wake-up time', async () => {
    const { service, inprocess, handOvers } = wire();
    const flow = flowOf(
      'nap-then-count',
      [
        { id: 'nap', type: 'sleep', duration: '5ms' },
        { id: 'count', type: 'tool', tool: 'count', args: {} },
      ],
      { output: '=steps.count.output' },
    );
    const { runId } = await service.start({
      flow,
      input: {},
      handoff: { to: 'temporal', at: 'first-tool-call' },
    });
    await inprocess.settled();
    const napEnd = ofType(await store.readEvents(runId), 'step.completed').find((event) => event.stepId === 'nap');
    expect(handOvers).toHaveLength(1);
    expect(handOvers[0]?.seed?.find((entry) => entry.stepId === 'nap')).toMatchObject({
      kind: 'sleep',
      inputHash: 'sleep:5',
      status: 'completed',
      output: { until: (napEnd?.output as { until: string } | undefined)?.until },
    });
  });

  it('a host answering from a seed does not sleep a finished sleep again, and marks it reused', async () => {
    const { service, inprocess } = wire();
    // An hour: were it slept again, the run would not end within the test's timeout.
    const flow = flowOf('long-nap', [{ id: 'nap', type: 'sleep', duration: '1h' }], {
      output: '=steps.nap.output.until',
    });
    const until = new Date(Date.now() - 1_000).toISOString();
    const { runId } = await service.start({
      flow,
      input: {},
      seed: [
        {
          stepId: 'nap',
          kind: 'sleep',
          inputHash: 'sleep:3600000',
          status: 'completed',
          output: { until },
          error: null,
        },
      ],
    });
    await inprocess.settled();
    expect(await store.getRun(runId)).toMatchObject({ status: 'completed', output: until });
    const napEnd = ofType(await store.readEvents(runId), 'step.completed').find((event) => event.stepId === 'nap');
    expect(napEnd?.reused).toBe(true);
  });
});
