/**
 * The CLI on a real Inngest dev server: `weft run --backend inngest` serving the function from
 * the command itself, an approval that parks the command and `weft approve` (another process,
 * another port: it syncs the app again) that completes it, `--approve` presets, `weft runs
 * cancel`, and `weft backend up|status|down inngest`.
 */
import { type InngestDevServer, startInngestDevServer } from '@weft/adapters/inngest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let server: InngestDevServer;
let env: Record<string, string>;
let simple: string;
let gated: string;

beforeAll(async () => {
  ws = await workspace();
  server = await startInngestDevServer();
  env = { INNGEST_DEV: '1', INNGEST_BASE_URL: server.url };
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
}, 15 * 60_000);

afterAll(async () => {
  await server?.stop();
  await ws?.cleanup();
}, 60_000);

describe('weft on Inngest', () => {
  it('--backend inngest needs INNGEST_DEV or INNGEST_BASE_URL', async () => {
    const result = await ws.cli(['run', simple, '--backend', 'inngest'], {
      env: { INNGEST_DEV: '', INNGEST_BASE_URL: '', TEMPORAL_ADDRESS: '' },
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("unknown backend 'inngest'; the CLI can run on: inprocess");
    expect(result.stderr).toContain('set INNGEST_DEV or INNGEST_BASE_URL');
    expect(result.stderr).toContain('weft backend up inngest');
  });

  it('runs a flow to completion, serving the function from the command', async () => {
    const result = await ws.cli(['run', simple, '--backend', 'inngest', '--input', '{"name":"weft"}', '--json'], {
      env,
    });
    expect(result.stderr).toContain('serving the Inngest function from this process');
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: 'hello weft' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✓ greet/);
    expect(result.stderr).toMatch(/· inngest/);
  }, 40_000);

  it('an approval parks the command (exit 2) and `weft approve` completes the run', async () => {
    const parked = await ws.cli(['run', gated, '--backend', 'inngest', '--input', '{"text":"post"}', '--json'], {
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

  it('--approve presets decide through a decision event', async () => {
    const result = await ws.cli(
      ['run', gated, '--backend', 'inngest', '--input', '{"text":"x"}', '--approve', 'ok=no', '--json'],
      { env },
    );
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: { approved: false } });
    expect(result.code).toBe(0);
  }, 40_000);

  it('`weft runs cancel` cancels a parked run', async () => {
    const parked = await ws.cli(['run', gated, '--backend', 'inngest', '--input', '{"text":"y"}', '--json'], { env });
    expect(parked.code).toBe(2);
    const { runId } = lastJson(parked.stdout) as { runId: string };
    const cancelled = await ws.cli(['runs', 'cancel', runId], { env });
    expect(cancelled.stderr).toContain(`■ cancelled run ${runId} (cancelled)`);
    expect(cancelled.code).toBe(0);
    const shown = await ws.cli(['runs', 'show', runId, '--json'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ run: { status: 'cancelled' } });
  }, 60_000);

  it('backend up / status / down round trip, and a run on the server it started', async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const up = await ws.cli(['backend', 'up', 'inngest', '--port', port]);
    expect(up.stdout.trim().split('\n')).toEqual(['INNGEST_DEV=1', `INNGEST_BASE_URL=http://127.0.0.1:${port}`]);
    expect(up.code).toBe(0);
    try {
      const status = await ws.cli(['backend', 'status']);
      expect(status.stdout).toContain(`inngest: running`);
      expect(status.stdout).toContain('temporal: stopped');
      expect(status.code).toBe(0);
      const run = await ws.cli(['run', simple, '--backend', 'inngest', '--input', '{"name":"up"}', '--json'], {
        env: { INNGEST_DEV: '1', INNGEST_BASE_URL: `http://127.0.0.1:${port}` },
      });
      expect(lastJson(run.stdout)).toMatchObject({ status: 'completed', output: 'hello up' });
    } finally {
      const down = await ws.cli(['backend', 'down', 'inngest']);
      expect(down.code).toBe(0);
    }
    const after = await ws.cli(['backend', 'status', 'inngest']);
    expect(after.stdout).toContain('inngest: stopped');
    expect(after.code).toBe(1);
  }, 90_000);
});
