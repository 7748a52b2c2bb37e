/**
 * The CLI as a client of a running server (`--server <url>`): a real HTTP server in this
 * process, the CLI as child processes. Runs started from the terminal are the server's runs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server/http.ts';
import { type ApiServices, createServices } from '../src/server/services.ts';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let services: ApiServices;
let server: RunningServer;
let secured: RunningServer;
let simple: string;
let gated: string;

beforeAll(async () => {
  ws = await workspace();
  services = await createServices({ dataDir: join(ws.dir, 'server-data'), env: { WEFT_LOG_LEVEL: 'silent' } });
  server = await startServer({ services, port: 0, host: '127.0.0.1' });
  secured = await startServer({ services, port: 0, host: '127.0.0.1', token: 'sesame-token' });
  simple = await ws.write(
    'hello.json',
    flow('hello', [{ id: 'greet', type: 'transform', value: 'hi {{ input.name }}' }], {
      output: { greeting: '=steps.greet.output' },
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
      { output: { approved: '=steps.ok.output.approved' } },
    ),
  );
});

afterAll(async () => {
  await secured?.close();
  await server?.close();
  await services?.close();
  await ws.cleanup();
});

describe('weft … --server', () => {
  it('runs a flow on the server with progress on stderr and the --json line', async () => {
    const result = await ws.cli(['run', simple, '--input', '{"name":"Ada"}', '--server', server.url, '--json']);
    expect(result.stderr).toMatch(/▶ run \S+ · hello@1/);
    expect(result.stderr).toMatch(/✓ greet/);
    expect(result.stderr).toMatch(/✓ completed/);
    expect(result.code).toBe(0);
    const line = lastJson(result.stdout) as unknown as { runId: string };
    expect(line).toMatchObject({ status: 'completed', output: { greeting: 'hi Ada' } });
    // The run is the server's: visible through the API, not in the local store.
    const got = await services.store.getRun(line.runId);
    expect(got?.status).toBe('completed');
  });

  it('imports the flows a flow spawns from its folder when the server lacks them, or names the missing one', async () => {
    await ws.write(
      'kid.json',
      flow('kid', [{ id: 'add', type: 'transform', value: '=input.n + 1' }], { output: '=steps.add.output' }),
    );
    const parent = await ws.write(
      'parent.json',
      flow('parent', [{ id: 'child', type: 'spawn', flow: 'kid', input: { n: '=1' } }]),
    );
    const result = await ws.cli(['run', parent, '--server', server.url, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect((await services.store.flows.get('kid'))?.version).toBe(1);
    const orphan = await ws.write(
      'orphan.json',
      flow('orphan', [{ id: 'child', type: 'spawn', flow: 'nowhere', input: {} }]),
    );
    const refused = await ws.cli(['run', orphan, '--server', server.url]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /flow 'orphan' uses flow 'nowhere', which neither the server nor \S+ has \(no \S+nowhere\.json\)/,
    );
  });

  it('parks on an approval (exit 2), then `approve --server` completes it', async () => {
    const parked = await ws.cli(['run', gated, '--input', '{"text":"post"}', '--server', server.url, '--json']);
    expect(parked.code).toBe(2);
    const line = lastJson(parked.stdout) as unknown as { runId: string; status: string };
    expect(line.status).toBe('waiting');
    expect(parked.stderr).toContain(`weft approve ${line.runId} ok yes|no --server ${server.url}`);

    const approved = await ws.cli(['approve', line.runId, 'ok', 'yes', '--server', server.url, '--json']);
    expect(approved.stderr).toMatch(/☑ approved ok/);
    expect(approved.code).toBe(0);
    expect(lastJson(approved.stdout)).toMatchObject({ status: 'completed', output: { approved: true } });
  });

  it('replays a run from a step and compares the two, on the server', async () => {
    const first = lastJson(
      (await ws.cli(['run', simple, '--input', '{"name":"Bo"}', '--server', server.url, '--json'])).stdout,
    );
    const replay = await ws.cli([
      'runs',
      'replay',
      String(first.runId),
      '--from',
      'greet',
      '--server',
      server.url,
      '--json',
    ]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toMatch(/↺ replay of run \S+ from greet/);
    const replayed = lastJson(replay.stdout);
    expect(replayed).toMatchObject({
      status: 'completed',
      output: { greeting: 'hi Bo' },
      replayOf: { runId: first.runId },
    });
    expect((await services.store.getRun(String(replayed.runId)))?.replayOf).toEqual({
      runId: first.runId,
      checkpoint: 'greet',
    });

    const same = await ws.cli(['runs', 'diff', String(first.runId), String(replayed.runId), '--server', server.url]);
    expect(same.stdout).toContain('every step the same');
    expect(same.code).toBe(0);
    const other = lastJson(
      (await ws.cli(['run', simple, '--input', '{"name":"Cy"}', '--server', server.url, '--json'])).stdout,
    );
    const differ = await ws.cli(['runs', 'diff', String(first.runId), String(other.runId), '--server', server.url]);
    expect(differ.code).toBe(1);
    expect(differ.stdout).toMatch(/≠ greet\s+.*"hi Bo" → "hi Cy"/);
  });

  it('answers --approve presets through the API', async () => {
    const result = await ws.cli([
      'run',
      gated,
      '--input',
      '{"text":"x"}',
      '--approve',
      'ok=no',
      '--server',
      server.url,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: { approved: false } });
  });

  it('lists the server runs', async () => {
    const result = await ws.cli(['runs', 'list', '--json'], { env: { WEFT_SERVER: server.url } });
    expect(result.code).toBe(0);
    const runs = lastJson(result.stdout) as unknown as { flowId: string }[];
    expect(runs.map((run) => run.flowId)).toEqual(expect.arrayContaining(['hello', 'gated']));
  });

  it('shows a run, exports its fixtures and validates through the server', async () => {
    const runs = (await services.store.listRuns({ flowId: 'hello' }))[0]!;
    const show = await ws.cli(['runs', 'show', runs.id, '--server', server.url, '--json']);
    expect(show.code).toBe(0);
    const shown = lastJson(show.stdout) as unknown as { events: { type: string }[]; state: { status: string } };
    expect(shown.state.status).toBe('completed');
    expect(shown.events.map((e) => e.type).at(-1)).toBe('run.completed');
    const fixtures = await ws.cli(['runs', 'fixtures', runs.id, '--server', server.url]);
    expect(fixtures.code).toBe(0);
    expect(JSON.parse(fixtures.stdout)).toEqual({});
    const valid = await ws.cli(['validate', simple, '--server', server.url, '--json']);
    expect(valid.code).toBe(0);
    expect(lastJson(valid.stdout)).toEqual({ ok: true });
  });

  it("saves a server run as a test case here, which `weft test` runs against this folder's flows", async () => {
    const run = lastJson(
      (await ws.cli(['run', simple, '--input', '{"name":"Di"}', '--server', server.url, '--json'])).stdout,
    );
    const saved = await ws.cli(['runs', 'save-test', String(run.runId), '--name', 'di', '--server', server.url]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toBe('tests/hello-di.json\n');
    const tested = await ws.cli(['test']);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^✓ 1\/1 di \(tests\/hello-di\.json, /m);
  });

  it('needs WEFT_TOKEN when the server has one', async () => {
    const missing = await ws.cli(['runs', 'list', '--server', secured.url], { env: { WEFT_TOKEN: undefined } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('needs a token: set WEFT_TOKEN');
    const ok = await ws.cli(['run', simple, '--server', secured.url, '--json'], {
      env: { WEFT_TOKEN: 'sesame-token' },
    });
    expect(ok.code).toBe(0);
    expect(lastJson(ok.stdout)).toMatchObject({ status: 'completed' });
  });

  it('names the URL when the server is down', async () => {
    const result = await ws.cli(['runs', 'list', '--server', 'http://127.0.0.1:9']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the weft server at http://127.0.0.1:9');
  });
});
