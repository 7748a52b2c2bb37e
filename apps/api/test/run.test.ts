import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let greet: string;
beforeAll(async () => {
  ws = await workspace();
  greet = await ws.write(
    'greet.json',
    flow(
      'greet',
      [
        { id: 'shape', type: 'transform', value: { name: '=input.name' } },
        { id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'hello {{ steps.shape.output.name }}, how are you' },
        {
          id: 'fan',
          type: 'parallel',
          branches: {
            left: [{ id: 'one', type: 'code', source: 'return 1' }],
            right: [
              { id: 'len', type: 'code', source: 'return args.t.length', args: { t: '=steps.agent.output.text' } },
            ],
          },
        },
      ],
      { output: { text: '=steps.agent.output.text', fan: '=steps.fan.output' } },
    ),
  );
});
afterAll(() => ws.cleanup());

describe('weft run', () => {
  it('runs a flow: --json result as the last stdout line, progress on stderr', async () => {
    const input = await ws.write('input.json', { name: 'Ada' });
    const result = await ws.cli(['run', greet, '--input', `@${input}`, '--json']);
    expect(result.code).toBe(0);
    const json = lastJson(result.stdout);
    expect(json).toMatchObject({
      status: 'completed',
      output: { text: 'hello Ada, how are you', fan: { left: 1, right: 22 } },
    });
    expect(json.runId).toMatch(/^run_/);
    expect(json).not.toHaveProperty('error');
    const lines = result.stderr.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}▶ run run_\S+ · greet@1 · inprocess$/));
    expect(lines).toContainEqual(expect.stringMatching(/▸ agent +llm mock:echo \[mock\]/));
    expect(lines).toContainEqual(expect.stringMatching(/▸ agent\/llm#1 +model turn 1 \[mock\]/));
    expect(lines).toContainEqual(expect.stringMatching(/⋯ agent\/llm#1 +"hello /)); // token deltas, one line each
    expect(lines).toContainEqual(
      expect.stringMatching(/✓ agent\/llm#1 +\d+ms "hello Ada, how are you" \d+ tok \[mock\]/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/✓ fan\.right\/len +\d+ms 22$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^✓ completed in \S+ · 5 steps · \d+ tokens \(\d+ in, \d+ out\)$/),
    );
  });

  it("checks the input against the flow's input schema, naming the field, and starts nothing", async () => {
    const typed = await ws.write(
      'typed.json',
      flow('typed', [{ id: 'echo', type: 'transform', value: '=input.ticket' }], {
        input: { type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] },
      }),
    );
    const result = await ws.cli(['run', typed, '--input', '{"ticket": 42}', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('input.ticket: must be string, got number 42');
    expect(lastJson(result.stdout)).toMatchObject({
      runId: null,
      status: 'invalid',
      errors: [{ path: 'input.ticket', message: 'must be string, got number 42' }],
    });
    const missing = await ws.cli(['run', typed, '--input', '{}']);
    expect(missing.stderr).toContain('input.ticket: is required');
    const list = await ws.cli(['runs', 'list', '--flow', 'typed', '--json']);
    expect(lastJson(list.stdout)).toEqual([]);
  });

  it('takes --input as inline JSON and reports bad input JSON clearly', async () => {
    const ok = await ws.cli(['run', greet, '--input', '{"name":"Bo"}', '--json']);
    expect(ok.code).toBe(0);
    expect(lastJson(ok.stdout)).toMatchObject({ output: { text: 'hello Bo, how are you' } });
    const bad = await ws.cli(['run', greet, '--input', '{"name":']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--input is not valid JSON/);
  });

  it('exits 1 for a failing flow, naming the step and the error', async () => {
    const file = await ws.write(
      'failing.json',
      flow('failing', [
        { id: 'first', type: 'transform', value: 1 },
        { id: 'boom', type: 'fail', message: 'it broke at {{ steps.first.output }}' },
        { id: 'never', type: 'transform', value: 2 },
      ]),
    );
    const result = await ws.cli(['run', file, '--json']);
    expect(result.code).toBe(1);
    expect(lastJson(result.stdout)).toMatchObject({
      status: 'failed',
      output: null,
      error: { stepId: 'boom', message: expect.stringContaining('it broke at 1') },
    });
    expect(result.stderr).toMatch(/✗ boom +\d+ms it broke at 1/);
    expect(result.stderr).toMatch(/error at step 'boom': it broke at 1/);
    expect(result.stderr).not.toContain('never');
  });

  it('spawns flows found in --flows, with the child run in the progress', async () => {
    const lib = `${ws.dir}/lib`;
    await mkdir(lib, { recursive: true });
    await writeFile(
      `${lib}/double.json`,
      JSON.stringify(flow('double', [{ id: 'twice', type: 'transform', value: '=input.n * 2' }])),
    );
    const parent = await ws.write(
      'parent.json',
      flow('parent', [{ id: 'sub', type: 'spawn', flow: 'double', input: { n: '=input.n' } }]),
    );
    const missing = await ws.cli(['run', parent, '--input', '{"n":4}']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/double/);

    const result = await ws.cli(['run', parent, '--input', '{"n":4}', '--flows', lib, '--json']);
    expect(result.code).toBe(0);
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: 8 });
    expect(result.stderr).toMatch(/↳ sub +child run run_\S+~sub \(flow double\)/);
    expect(result.stderr).toMatch(/✓ sub › twice +\d+ms 8/);
    expect(result.stderr).toMatch(/1 child run/);
  });

  it('refuses unknown flags, backends and commands with usage, and prints help', async () => {
    // Independent processes: run them side by side.
    const [flag, backend, approve, missingArg, command, help, runHelp, listHelp] = await Promise.all([
      ws.cli(['run', greet, '--frobnicate']),
      ws.cli(['run', greet, '--backend', 'temporal']),
      ws.cli(['run', greet, '--approve', 'ok=maybe']),
      ws.cli(['run']),
      ws.cli(['frobnicate']),
      ws.cli(['--help']),
      ws.cli(['run', '--help']),
      ws.cli(['runs', 'list', '--help']),
    ]);
    expect(flag.code).toBe(64);
    expect(flag.stderr).toContain("unknown option '--frobnicate'");
    expect(flag.stderr).toContain('Usage: weft run');

    expect(backend.code).toBe(64);
    expect(backend.stderr).toMatch(/unknown backend 'temporal'.*inprocess/);

    expect(approve.code).toBe(64);
    expect(approve.stderr).toContain('--approve expects <stepId>=yes|no');

    expect(missingArg.code).toBe(64);
    expect(missingArg.stderr).toContain('missing argument');

    expect(command.code).toBe(64);
    expect(command.stderr).toContain("unknown command 'frobnicate'");

    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: weft <command>[\s\S]*validate[\s\S]*runs/);
    expect(runHelp.code).toBe(0);
    expect(runHelp.stdout).toContain('--approve <stepId>=yes|no');
    expect(listHelp.stdout).toContain('Usage: weft runs list');
  });

  it('enforces WEFT_MAX_INPUT_BYTES', async () => {
    const result = await ws.cli(['run', greet, '--input', JSON.stringify({ name: 'x'.repeat(200) })], {
      env: { WEFT_MAX_INPUT_BYTES: '100' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the limit is 100/);
  });
});
