/**
 * `weft run --handoff` on a real Temporal dev server: the run starts in-process in the command,
 * hands off at its first tool call to the Temporal worker the command runs, and the command
 * follows the one run to its end; `runs list` shows where it started and went on.
 */
import { startTemporalDevServer, type TemporalDevServer } from '@weft/adapters/temporal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let server: TemporalDevServer;
let env: Record<string, string>;
let agent: string;
let fixtures: string;

beforeAll(async () => {
  ws = await workspace();
  server = await startTemporalDevServer();
  env = { TEMPORAL_ADDRESS: server.address };
  agent = await ws.write(
    'agent.json',
    flow(
      'handoff-cli',
      [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'Add, then answer.', tools: ['add'], maxSteps: 4 }],
      {
        tools: {
          add: { description: 'a + b', parameters: { type: 'object' }, source: 'return args.a + args.b;' },
        },
        output: { text: '=steps.agent.output.text', sum: '=steps.agent.output.toolCalls[0].result' },
      },
    ),
  );
  fixtures = await ws.write(
    'fixtures.json',
    JSON.stringify({ agent: [{ toolCalls: [{ tool: 'add', args: { a: 2, b: 3 } }] }, { text: 'It is 5.' }] }),
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await ws?.cleanup();
});

describe('weft run --handoff', () => {
  it('starts in-process, hands off to Temporal at the first tool call, and follows the one run to its end', async () => {
    const result = await ws.cli(
      ['run', agent, '--fixtures', fixtures, '--handoff', 'temporal@first-tool-call', '--json'],
      { env },
    );
    expect(result.stderr).toMatch(/⇢ run handed off from inprocess to temporal at agent\/tool#1\.0/);
    const last = lastJson(result.stdout) as { runId: string; status: string; output: unknown };
    expect(last).toMatchObject({ status: 'completed', output: { text: 'It is 5.', sum: 5 } });
    expect(result.code).toBe(0);

    const listed = await ws.cli(['runs', 'list', '--json'], { env });
    expect(lastJson(listed.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          runId: last.runId,
          backend: 'temporal',
          handoff: { to: 'temporal', at: 'first-tool-call' },
        }),
      ]),
    );
    const table = await ws.cli(['runs', 'list'], { env });
    expect(table.stdout).toContain('inprocess→temporal');
  }, 60_000);

  it('a bad --handoff is a usage error naming the flag', async () => {
    const result = await ws.cli(['run', agent, '--handoff', 'temporal'], { env });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(
      "--handoff must be <engine>@<point>: engine temporal or inngest, point first-tool-call or a step id (got 'temporal')",
    );
  });
});
