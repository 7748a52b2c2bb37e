/**
 * Regressions from an outside probe of the server with hostile flows and bodies, over real HTTP:
 * each of these answered 500, poisoned the process or dropped data before.
 */
import { describe, expect, it } from 'vitest';
import { useHttpServer } from './test-support.ts';

const { post, query } = useHttpServer();

const flowJson = (id: string, steps: string, extra = '') =>
  `{"doc":{"irVersion":1,"id":"${id}","name":"${id}","steps":[${steps}]${extra}}}`;

/** Every procedure still answers, and nothing was written onto Object.prototype. */
async function expectHealthy() {
  expect((await query('flows.list', undefined)).status).toBe(200);
  expect((await query('runs.list', {})).status).toBe(200);
  const polluted = Object.getOwnPropertyNames(Object.prototype).filter((name) => !BUILT_IN.has(name));
  expect(polluted).toEqual([]);
}
const BUILT_IN = new Set(Object.getOwnPropertyNames(Object.prototype));

describe('hostile flows and bodies over HTTP', () => {
  it('refuses a step id of __proto__, naming the field, and keeps every procedure working', async () => {
    const answer = await post('flows.create', flowJson('proto-id', '{"id":"__proto__","type":"transform","value":1}'));
    expect(answer.status).toBe(400);
    expect(answer.body.error.data.flowErrors).toEqual([
      { stepId: '__proto__', path: 'steps[0].id', message: expect.stringMatching(/reserved by JavaScript/) },
    ]);
    await expectHealthy();
  });

  it('runs a flow whose step ids are Object.prototype member names and reports all three steps', async () => {
    const steps = [
      '{"id":"toString","type":"transform","value":1}',
      '{"id":"hasOwnProperty","type":"transform","value":2}',
      '{"id":"sum","type":"transform","value":"=steps.toString.output + steps.hasOwnProperty.output"}',
    ].join(',');
    expect((await post('flows.create', flowJson('proto-names', steps))).status).toBe(200);
    const started = await post('runs.start', '{"flowId":"proto-names"}');
    expect(started.status).toBe(200);
    const runId = started.body.result.data.runId as string;
    let got = await query('runs.get', { runId });
    for (let i = 0; i < 200 && got.body.result.data.state.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      got = await query('runs.get', { runId });
    }
    const state = got.body.result.data.state;
    expect(state.status).toBe('completed');
    expect(state.output).toBe(3);
    expect(state.order).toEqual(['toString', 'hasOwnProperty', 'sum']);
    await expectHealthy();
  });

  it('refuses a __proto__ key in a value instead of silently dropping it', async () => {
    const answer = await post(
      'flows.create',
      flowJson('proto-key', '{"id":"a","type":"transform","value":{"__proto__":{"isAdmin":true},"b":1}}'),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.data.flowErrors).toEqual([
      { stepId: 'a', path: 'steps[0].value.__proto__', message: expect.stringMatching(/cannot be a key/) },
    ]);
    await expectHealthy();
  });

  it('answers a 10,000-deep input JSON Schema with 400 naming where, not 500', async () => {
    const schema = `${'{"type":"object","properties":{"a":'.repeat(10_000)}{}${'}}'.repeat(10_000)}`;
    const answer = await post(
      'flows.create',
      flowJson('deep-schema', '{"id":"a","type":"transform","value":1}', `,"input":${schema}`),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/nested more than \d+ levels deep.*doc\.input\.properties\.a/);
    await expectHealthy();
  });

  it('answers very deep JSON with 400 naming where (not "Maximum call stack size exceeded")', async () => {
    const deep = `{"flowId":"x","input":{"list":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    const answer = await post('runs.start', deep);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(
      /^the request body is nested more than \d+ levels deep.*at input\.list\[0\]/,
    );
    expect(answer.body.error.message).not.toMatch(/call stack/);
    const get = await query('flows.list', { deep: JSON.parse(`${'['.repeat(1500)}${']'.repeat(1500)}`) });
    expect(get.status).toBe(400);
    expect(get.body.error.message).toMatch(/the input parameter is nested more than/);
    await expectHealthy();
  });

  it('refuses run input deeper than the input limit, naming the field', async () => {
    expect(
      (await post('flows.create', flowJson('takes-input', '{"id":"a","type":"transform","value":1}'))).status,
    ).toBe(200);
    const input = `${'{"a":'.repeat(400)}1${'}'.repeat(400)}`;
    const answer = await post('runs.start', `{"flowId":"takes-input","input":${input}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/input\.a\.a.*nested more than 256 levels/);
    await expectHealthy();
  });
});
