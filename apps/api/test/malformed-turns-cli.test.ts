/**
 * The CLI refuses malformed recorded model turns before it records anything, naming the field:
 * `weft run --fixtures` with a turn whose toolCalls is not an array (before: the run was recorded
 * and failed at its llm step), and `weft runs replay --pin` with a null pin or such a turn
 * (before: a TypeError text, or the run failed later).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let file: string;
let sourceRunId: string;
beforeAll(async () => {
  ws = await workspace();
  file = await ws.write(
    'agent.json',
    flow('agent-turn', [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'hello' }], {
      output: '=steps.agent.output.text',
    }),
  );
  const fixtures = await ws.write('good.fixtures.json', { agent: [{ text: 'recorded' }] });
  const source = lastJson((await ws.cli(['run', file, '--fixtures', fixtures, '--json'])).stdout);
  expect(source).toMatchObject({ status: 'completed', output: 'recorded' });
  sourceRunId = String(source.runId);
  expect(await runCount()).toBe(1);
});
afterAll(async () => {
  await ws.cleanup();
});

/** How many runs the data folder holds. */
async function runCount(): Promise<number> {
  const listed = await ws.cli(['runs', 'list', '--json']);
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as unknown[]).length;
}

describe('malformed turns from the CLI', () => {
  it('weft run --fixtures refuses a turn whose toolCalls is not an array, naming the field', async () => {
    const before = await runCount();
    const fixtures = await ws.write('bad.fixtures.json', { agent: [{ toolCalls: 'x' }] });
    const result = await ws.cli(['run', file, '--fixtures', fixtures]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("fixtures['agent'][0].toolCalls: expected an array of { tool, args }");
    expect(await runCount()).toBe(before);
  });

  it('weft runs replay --pin refuses a null pin and a turn with toolCalls "x", naming the pin', async () => {
    const before = await runCount();
    for (const [pin, message] of [
      ['null', "pins['agent/llm#1']: expected a model turn"],
      ['{"toolCalls":"x"}', "pins['agent/llm#1'].toolCalls: expected an array of { tool, args }"],
      [
        '{"text":"x","toolCalls":[],"responseMessages":[1]}',
        "pins['agent/llm#1'].responseMessages[0]: expected a message",
      ],
    ] as const) {
      const result = await ws.cli(['runs', 'replay', sourceRunId, '--from', 'agent', '--pin', `agent/llm#1=${pin}`]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/TypeError|Cannot read properties/);
    }
    expect(await runCount()).toBe(before);
  });
});
