/**
 * The CLI on a real Temporal dev server: `weft run --backend temporal` (with its in-process
 * worker), an approval that parks the command and `weft approve` that signals the workflow,
 * and `weft backend up|status|down temporal`.
 */
import { startTemporalDevServer, type TemporalDevServer } from '@weft/adapters/temporal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalFlow, testServices, waitForStatus } from '../src/server/test-support.ts';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let server: TemporalDevServer;
let env: Record<string, string>;
let simple: string;
let gated: string;

beforeAll(async () => {
  ws = await workspace();
  server = await startTemporalDevServer();
  env = { TEMPORAL_ADDRESS: server.address };
  simple = await ws.write(
    'simple.json',
    flow('simple', [{ id: 'greet', type: 'transform', value: 'hello {{ input.name }}' }], {
      output: '=steps.greet.output',
    }),
  );
  gated = await ws.write(
    'gated.json',
    flow(
      'gated',
      [
        { id: 'draft', type: 'transform', value: '=input.text' },
        { id: 'ok', type: 'approval', prompt: 'Publish {{ steps.draft.output }}?' },
      ],
      { output: { draft: '=steps.draft.output', approved: '=steps.ok.output.approved' } },
    ),
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await ws?.cleanup();
});

describe('weft on Temporal', () => {
  it('--backend temporal needs TEMPORAL_ADDRESS', async () => {
    const result = await ws.cli(['run', simple, '--backend', 'temporal'], { env: { TEMPORAL_ADDRESS: '' } });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("unknown backend 'temporal'; the CLI can run on: inprocess");
  });

  it('runs a flow to completion with an in-process worker', async () => {
    const result = await ws.cli(['run', simple, '--backend', 'temporal', '--input', '{"name":"weft"}', '--json'], {
      env,
    });
    expect(result.stderr).toContain('starting a Temporal worker in this process');
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: 'hello weft' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✓ greet/);
    expect(result.stderr).toMatch(/· temporal/);
  }, 40_000);

  it('an approval parks the command (exit 2) and `weft approve` completes the run', async () => {
    const parked = await ws.cli(['run', gated, '--backend', 'temporal', '--input', '{"text":"post"}', '--json'], {
      env,
    });
    expect(parked.stderr).toMatch(/⏸ ok +approval requested: "Publish post\?"/);
    expect(parked.code).toBe(2);
    const waiting = lastJson(parked.stdout) as { runId: string; status: string; waiting: { command: string }[] };
    expect(waiting.waiting[0]?.command).toContain(`weft approve ${waiting.runId} ok yes|no`);

    const approved = await ws.cli(['approve', waiting.runId, 'ok', 'yes', '--json'], { env });
    expect(lastJson(approved.stdout)).toMatchObject({
      runId: waiting.runId,
      status: 'completed',
      output: { draft: 'post', approved: true },
    });
    expect(approved.code).toBe(0);
  }, 60_000);

  it('--approve presets decide through the workflow signal', async () => {
    const result = await ws.cli(
      ['run', gated, '--backend', 'temporal', '--input', '{"text":"x"}', '--approve', 'ok=no', '--json'],
      { env },
    );
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: { approved: false } });
    expect(result.code).toBe(0);
  }, 40_000);

  it('backend up / status / down round trip', async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const up = await ws.cli(['backend', 'up', 'temporal', '--port', port]);
    expect(up.stdout.trim().split('\n')).toEqual([
      `TEMPORAL_ADDRESS=127.0.0.1:${port}`,
      `TEMPORAL_UI_URL=http://127.0.0.1:${Number(port) + 1000}`,
    ]);
    // The Web UI the run links point at is served.
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${Number(port) + 1000}/`).then(
            (response) => response.status,
            () => 0,
          ),
        {
          timeout: 15_000,
        },
      )
      .toBe(200);
    expect(up.code).toBe(0);
    const status = await ws.cli(['backend', 'status']);
    expect(status.stdout).toContain(`running`);
    const down = await ws.cli(['backend', 'down', 'temporal']);
    expect(down.code).toBe(0);
    const after = await ws.cli(['backend', 'status']);
    expect(after.stdout).toContain('stopped');
    expect(after.code).toBe(1);
  }, 60_000);
});

describe('the API on Temporal', () => {
  it('runs.start({ backend: temporal }) streams events on the bus and approvals.decide signals', async () => {
    const api = await testServices({ env: { NODE_ENV: 'test', TEMPORAL_ADDRESS: server.address } });
    try {
      await api.services.store.flows.save(approvalFlow);
      const { runId } = await api.caller().runs.start({ flowId: 'ship', input: { name: 'B' }, backend: 'temporal' });
      expect((await api.services.store.getRun(runId))?.backend).toBe('temporal');
      const seen: string[] = [];
      const stream = (async () => {
        for await (const event of api.services.bus.subscribe(runId, 0)) {
          seen.push(event.type);
          if (event.type.startsWith('run.') && event.type !== 'run.started') break;
        }
      })();
      const until = Date.now() + 20_000;
      while ((await api.services.store.getApproval(runId, 'gate'))?.status !== 'pending') {
        if (Date.now() > until) throw new Error('no pending approval');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await api.caller().approvals.decide({ runId, stepId: 'gate', approved: true });
      await waitForStatus(api.services, runId, ['completed', 'failed'], 20_000);
      expect((await api.services.store.getRun(runId))?.output).toEqual({ shipped: true });
      await stream;
      expect(seen).toEqual(expect.arrayContaining(['approval.requested', 'approval.resolved', 'run.completed']));
    } finally {
      await api.close();
    }
  }, 60_000);
});
