import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.cleanup());

const addTool = { add: { description: 'adds', parameters: { type: 'object' }, source: 'return args.a + args.b' } };

describe('weft runs', () => {
  it('list and show: a table of runs; events, step states and pending approvals of one', async () => {
    const small = await ws.write('small.json', flow('small', [{ id: 'one', type: 'transform', value: 1 }]));
    const waits = await ws.write(
      'waits.json',
      flow('waits', [
        { id: 'first', type: 'transform', value: '=input' },
        { id: 'gate', type: 'approval', prompt: 'Go on?' },
      ]),
    );
    const [doneRun, parkedRun] = await Promise.all([
      ws.cli(['run', small, '--json']),
      ws.cli(['run', waits, '--input', '{"k":1}', '--json']),
    ]);
    const done = lastJson(doneRun.stdout) as { runId: string };
    const parked = lastJson(parkedRun.stdout) as { runId: string };
    // Read-only commands, side by side.
    const [list, filtered, badStatus, show, json, unknown] = await Promise.all([
      ws.cli(['runs', 'list']),
      ws.cli(['runs', 'list', '--flow', 'waits', '--status', 'waiting', '--limit', '5', '--json']),
      ws.cli(['runs', 'list', '--status', 'sleeping']),
      ws.cli(['runs', 'show', parked.runId]),
      ws.cli(['runs', 'show', done.runId, '--json']),
      ws.cli(['runs', 'show', 'run_missing']),
    ]);

    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +FLOW +STATUS +BACKEND +STARTED +DURATION +TOKENS +COST$/);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${parked.runId} +waits@1 +waiting +inprocess `)));
    expect(lines).toContainEqual(
      // Duration: "12ms", or "1.2s" on a loaded machine; no model turns, so no tokens and nothing to pay.
      expect.stringMatching(new RegExp(`^${done.runId} +small@1 +completed +inprocess .* [\\d.]+m?s +0→0 +\\$0$`)),
    );

    expect(JSON.parse(filtered.stdout)).toEqual([
      expect.objectContaining({ runId: parked.runId, flowId: 'waits', status: 'waiting', backend: 'inprocess' }),
    ]);
    expect(badStatus.code).toBe(64);
    expect(badStatus.stderr).toContain("unknown status 'sleeping'");

    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/status +waiting/);
    expect(show.stdout).toMatch(/^SEQ +TIME +TYPE +STEP +DETAIL$/m);
    expect(show.stdout).toMatch(/^\d+ +\d\d:\d\d:\d\d\.\d{3} +run\.started +waits@1 on inprocess$/m);
    expect(show.stdout).toMatch(/^\d+ +\S+ +approval\.requested +gate +"Go on\?"$/m);
    expect(show.stdout).toMatch(/^first +transform +completed +1 +[\d.]+m?s +\{"k":1\}$/m);
    expect(show.stdout).toMatch(/^gate +approval +waiting +1 .*waiting: "Go on\?"$/m);
    expect(show.stdout).toContain(`weft approve ${parked.runId} gate yes|no`);

    const shown = JSON.parse(json.stdout) as {
      run: { status: string };
      events: { type: string }[];
      state: { steps: object };
    };
    expect(shown.run.status).toBe('completed');
    expect(shown.events.map((event) => event.type)).toEqual([
      'run.started',
      'step.started',
      'step.completed',
      'run.completed',
    ]);
    expect(shown.state.steps).toHaveProperty('one');

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown run 'run_missing'");
  });

  it('fixtures: a run exported, then re-run offline from them, gives the same output', async () => {
    const agent = await ws.write(
      'agent.json',
      flow(
        'agent',
        [
          {
            id: 'plan',
            type: 'llm',
            model: 'mock:echo',
            prompt: 'sum {{ input.a }} and {{ input.b }}',
            tools: ['add'],
            maxSteps: 3,
          },
          { id: 'echo', type: 'llm', model: 'mock:echo', prompt: 'say {{ steps.plan.output.text }}' },
        ],
        {
          tools: addTool,
          output: {
            plan: '=steps.plan.output.text',
            calls: '=steps.plan.output.toolCalls',
            echo: '=steps.echo.output.text',
          },
        },
      ),
    );
    // The first run's plan turns are recorded ones (a tool call, then text); echo is a live mock turn.
    const recorded = await ws.write('recorded.json', {
      plan: [{ toolCalls: [{ tool: 'add', args: { a: 2, b: 3 } }] }, { text: 'it is 5' }],
    });
    const first = await ws.cli(['run', agent, '--input', '{"a":2,"b":3}', '--fixtures', recorded, '--json']);
    expect(first.code).toBe(0);
    const { runId, output } = lastJson(first.stdout) as { runId: string; output: Record<string, unknown> };
    expect(output).toMatchObject({ plan: 'it is 5', echo: 'say it is 5', calls: [{ tool: 'add', result: 5 }] });
    expect(first.stderr).toMatch(/▸ plan\/llm#1 +model turn 1 \[fixture\]/);
    expect(first.stderr).toMatch(/▸ echo\/llm#1 +model turn 1 \[mock\]/);

    const [exported, stdoutExport] = await Promise.all([
      ws.cli(['runs', 'fixtures', runId, '-o', `${ws.dir}/exported.json`]),
      ws.cli(['runs', 'fixtures', runId]),
    ]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/wrote 3 model turns of 2 llm steps/);
    const fixtures = JSON.parse(await readFile(`${ws.dir}/exported.json`, 'utf8'));
    expect(fixtures).toEqual({
      plan: [{ toolCalls: [{ tool: 'add', args: { a: 2, b: 3 } }] }, { text: 'it is 5' }],
      echo: [{ text: 'say it is 5', usage: expect.objectContaining({ totalTokens: expect.any(Number) }) }],
    });
    expect(JSON.parse(stdoutExport.stdout)).toEqual(fixtures);

    const again = await ws.cli([
      'run',
      agent,
      '--input',
      '{"a":2,"b":3}',
      '--fixtures',
      `${ws.dir}/exported.json`,
      '--json',
    ]);
    expect(again.code).toBe(0);
    expect(lastJson(again.stdout).output).toEqual(output);
    expect(again.stderr).toMatch(/▸ echo\/llm#1 +model turn 1 \[fixture\]/);
    expect(again.stderr).not.toMatch(/llm#\d+ .*\[mock\]/); // every turn came from the fixtures
  });

  it('resume: a run whose process was killed mid-step continues in a new process; a live one is busy', async () => {
    const slow = await ws.write(
      'slow.json',
      flow('slow', [
        { id: 'before', type: 'transform', value: 'x' },
        { id: 'nap', type: 'sleep', duration: '4s' },
        { id: 'after', type: 'transform', value: '=steps.before.output + "y"' },
      ]),
    );
    const running = ws.start(['run', slow]);
    const [, runId] = await running.waitFor(/▶ run (\S+) ·/);
    await running.waitFor(/▸ nap/);

    const busy = await ws.cli(['runs', 'resume', runId!]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/being executed by .*another live process/s);

    running.child.kill('SIGKILL');
    await running.exited;
    const resumed = await ws.cli(['runs', 'resume', runId!, '--json']);
    expect(resumed.code).toBe(0);
    expect(lastJson(resumed.stdout)).toEqual({ runId, status: 'completed', output: 'xy' });
    expect(resumed.stderr).toMatch(/✓ after/);
    expect(resumed.stderr).not.toMatch(/✓ before/); // answered from the journal, not run again
  });

  it('cancel: a parked run is cancelled once', async () => {
    const waits = await ws.write('gate.json', flow('gate', [{ id: 'gate', type: 'approval', prompt: 'ok?' }]));
    const { runId } = lastJson((await ws.cli(['run', waits, '--json'])).stdout) as { runId: string };
    const cancelled = await ws.cli(['runs', 'cancel', runId]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain(`cancelled run ${runId}`);
    const show = await ws.cli(['runs', 'show', runId, '--json']);
    expect(JSON.parse(show.stdout).run.status).toBe('cancelled');
    const again = await ws.cli(['runs', 'cancel', runId]);
    expect(again.stderr).toContain('already cancelled');
  });
});
