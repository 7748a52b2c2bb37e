/**
 * Bad input ends in a clear error before anything is stored, or in a failed run that says why —
 * never in a hang, a crash of the runner, or lost data: after each failure the run row and its
 * event log are intact.
 */
import { FlowInvalidError, type FlowRef } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlowSource, InputTooLargeError, MAX_SPAWN_DEPTH } from '../src/inprocess/index.ts';
import { duplicateKeys, flowOf, sqliteRunnerHarness } from '../src/inprocess/test-support.ts';
import { startFakeOpenAIServer } from '../test-support/fake-openai-server.ts';

const { store, runner } = sqliteRunnerHarness();

/** Starting `doc` fails with a FlowInvalidError whose issues match, and stores no run. */
async function expectRejected(
  doc: unknown,
  issue: { stepId?: string | null; path?: string; message: RegExp | string },
) {
  const r = runner();
  const before = (await store.listRuns()).length;
  const error = await r.start(doc, {}).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FlowInvalidError);
  const { issues } = error as FlowInvalidError;
  const match = issues.find((found) =>
    typeof issue.message === 'string' ? found.message.includes(issue.message) : issue.message.test(found.message),
  );
  expect(match, JSON.stringify(issues)).toBeDefined();
  if (issue.path !== undefined) expect(match?.path).toBe(issue.path);
  if (issue.stepId !== undefined) expect(match?.stepId).toBe(issue.stepId);
  expect((await store.listRuns()).length).toBe(before);
}

/** The run failed for `reason`, and its row and event log say so, once. */
async function expectFailedRun(runId: string, reason: RegExp) {
  const row = await store.getRun(runId);
  expect(row?.status).toBe('failed');
  expect(row?.error?.message).toMatch(reason);
  const events = await store.readEvents(runId);
  expect(duplicateKeys(events)).toEqual([]);
  expect(events[0]?.type).toBe('run.started');
  const failed = events.filter((event) => event.type === 'run.failed');
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ error: row?.error });
  return events;
}

describe('flow documents the runner refuses', () => {
  it('malformed JSON text (the caller passed the unparsed document)', async () => {
    await expectRejected('{"irVersion":1,"id":"x",', { message: 'a flow must be a JSON object' });
  });

  it('a document of the wrong shape, naming the field', async () => {
    await expectRejected(
      { irVersion: 1, id: 'x', name: 'x', steps: 'not a list' },
      {
        path: 'steps',
        message: 'expected array',
      },
    );
  });

  it('an unknown step type, naming the step and the types there are', async () => {
    await expectRejected(flowOf('x', [{ id: 'warp', type: 'teleport' }]), {
      stepId: 'warp',
      path: 'steps[0].type',
      message: /unknown step type; expected one of: llm, tool, code/,
    });
  });

  it('duplicate step ids', async () => {
    await expectRejected(
      flowOf('x', [
        { id: 'a', type: 'transform', value: 1 },
        { id: 'a', type: 'transform', value: 2 },
      ]),
      { stepId: 'a', path: 'steps[1].id', message: "duplicate step id 'a'" },
    );
  });

  it('an expression reaching for the Function constructor is a validation error, never run', async () => {
    await expectRejected(
      flowOf('x', [{ id: 'evil', type: 'transform', value: "=constructor.constructor('return process')()" }]),
      {
        stepId: 'evil',
        message: "unknown name 'constructor'",
      },
    );
    await expectRejected(flowOf('x', [{ id: 'evil', type: 'transform', value: '=input.constructor' }]), {
      message: "property 'constructor' is not allowed",
    });
    // A key only known at run time is checked at run time: the run fails, nothing is reached.
    const outcome = await runner().start(flowOf('x', [{ id: 'evil', type: 'transform', value: '=input[input.k]' }]), {
      k: 'constructor',
    });
    await expectFailedRun(outcome.runId, /property 'constructor' is not allowed/);
  });
});

describe('spawn cycles', () => {
  const a = flowOf('a', [{ id: 'call', type: 'spawn', flow: 'b' }]);
  const b = flowOf('b', [{ id: 'call', type: 'spawn', flow: 'a' }]);

  it('a cycle among known flows is rejected at start', async () => {
    const r = runner({ flows: [a, b] });
    const before = (await store.listRuns()).length;
    const error = (await r.start(a, {}).catch((caught: unknown) => caught)) as FlowInvalidError;
    expect(error).toBeInstanceOf(FlowInvalidError);
    expect(error.issues.map((issue) => issue.message)).toContain('spawn cycle: a → b → a');
    expect((await store.listRuns()).length).toBe(before);
  });

  it('a cycle a flow source hides from validation stops at the spawn depth limit', async () => {
    // It validates against stale documents that spawn nothing, then hands out the cyclic ones.
    const real = new Map([
      ['a', a],
      ['b', b],
    ]);
    const lying: FlowSource = {
      getFlow: async (ref: FlowRef) => real.get(ref.id),
      documents: async () =>
        new Map<string, unknown>([
          ['a', flowOf('a', [{ id: 'noop', type: 'transform', value: 1 }])],
          ['b', flowOf('b', [{ id: 'noop', type: 'transform', value: 1 }])],
        ]),
    };
    const r = runner({ flows: lying });
    const outcome = await r.start(a, {});
    expect(outcome.status).toBe('failed');
    await expectFailedRun(outcome.runId, new RegExp(`spawn depth ${MAX_SPAWN_DEPTH} exceeded`));
    // Every level exists as a run, and every one of them failed: nothing is left running.
    const chain: string[] = [];
    for (let id: string | undefined = outcome.runId; id; ) {
      chain.push(id);
      id = (await store.listRuns({ parentRunId: id }))[0]?.id;
    }
    expect(chain).toHaveLength(MAX_SPAWN_DEPTH + 1);
    for (const id of chain) expect((await store.getRun(id))?.status).toBe('failed');
  });
});

describe('input size', () => {
  const echo = flowOf('echo', [{ id: 'same', type: 'transform', value: '=input' }]);

  it('refuses a 10 MB input, naming the limit and how to change it; stores nothing', async () => {
    const before = (await store.listRuns()).length;
    const big = { text: 'x'.repeat(10 * 1024 * 1024) };
    const error = await runner()
      .start(echo, big)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputTooLargeError);
    expect((error as Error).message).toBe(
      `run input is ${10 * 1024 * 1024 + 11} bytes; the limit is 1048576 (set WEFT_MAX_INPUT_BYTES to change it)`,
    );
    expect((await store.listRuns()).length).toBe(before);
  });

  it('takes its limit from WEFT_MAX_INPUT_BYTES', async () => {
    const saved = process.env.WEFT_MAX_INPUT_BYTES;
    process.env.WEFT_MAX_INPUT_BYTES = '64';
    try {
      const r = runner();
      await expect(r.start(echo, { text: 'y'.repeat(100) })).rejects.toThrow('the limit is 64');
      expect((await r.start(echo, { text: 'short' })).status).toBe('completed');
      process.env.WEFT_MAX_INPUT_BYTES = 'lots';
      await expect(r.start(echo, {})).rejects.toThrow('WEFT_MAX_INPUT_BYTES must be a positive whole number');
    } finally {
      if (saved === undefined) delete process.env.WEFT_MAX_INPUT_BYTES;
      else process.env.WEFT_MAX_INPUT_BYTES = saved;
    }
  });
});

describe('steps that misbehave at run time', () => {
  it('an infinite loop in a code step fails the run at the sandbox time limit', async () => {
    const outcome = await runner().start(flowOf('spin', [{ id: 'spin', type: 'code', source: 'while (true) {}' }]), {});
    expect(outcome.status).toBe('failed');
    const events = await expectFailedRun(outcome.runId, /code step exceeded its 1000 ms time limit/);
    expect(events.find((event) => event.type === 'step.failed')).toMatchObject({ stepId: 'spin' });
  });

  describe('a model provider that fails', () => {
    let server: Awaited<ReturnType<typeof startFakeOpenAIServer>>;
    beforeAll(async () => {
      server = await startFakeOpenAIServer();
    });
    afterAll(() => server.close());
    const local = () => runner({ executors: { env: { WEFT_LOCAL_BASE_URL: server.baseURL } } });

    it('an HTTP 500 fails the run after its retries, naming provider and model', async () => {
      const before = server.requests.length;
      const flow = flowOf('ask', [
        {
          id: 'ask',
          type: 'llm',
          model: 'local:broken',
          prompt: 'hello',
          retry: { maxAttempts: 3, backoff: 'fixed', initialDelay: '5ms' },
        },
      ]);
      const outcome = await local().start(flow, {});
      expect(outcome.status).toBe('failed');
      expect(server.requests.length - before).toBe(3);
      const events = await expectFailedRun(
        outcome.runId,
        /model call to local:broken failed \(HTTP 500\).*\(after 3 attempts\)/,
      );
      expect(
        events.filter((event) => event.type === 'step.retrying').map((event) => 'attempt' in event && event.attempt),
      ).toEqual([1, 2]);
    });

    it('a model that never answers fails the run at the step timeout', async () => {
      const flow = flowOf('wait', [
        { id: 'ask', type: 'llm', model: 'local:sleeper', prompt: 'hello', timeout: '1s', retry: { maxAttempts: 1 } },
      ]);
      const outcome = await local().start(flow, {});
      expect(outcome.status).toBe('failed');
      await expectFailedRun(outcome.runId, /step 'ask\/llm#1' timed out after 1000 ms/);
    });
  });
});
