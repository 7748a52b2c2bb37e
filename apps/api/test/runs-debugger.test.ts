/**
 * The run debugger in the terminal: `weft runs list` with filters, full-text search, tokens and
 * cost; `weft runs show --at <seq>` and `--timeline`; here and against a server (`--server`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server/http.ts';
import { type ApiServices, createServices } from '../src/server/services.ts';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

let ws: Workspace;
/** The research agent (fixtures; a flow tool runs as a child run) and a one-step flow. */
let agentRun: string;
let smallRun: string;

async function runExample(name: string, extra: string[] = []): Promise<string> {
  const input = await readFile(join(examples, `${name}.input.json`), 'utf8');
  const result = await ws.cli([
    'run',
    join(examples, `${name}.json`),
    '--input',
    input,
    '--fixtures',
    join(examples, `${name}.fixtures.json`),
    '--json',
    ...extra,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return (lastJson(result.stdout) as { runId: string }).runId;
}

beforeAll(async () => {
  ws = await workspace();
  agentRun = await runExample('research-agent');
  const small = await ws.write('small.json', flow('small', [{ id: 'one', type: 'transform', value: 'plain' }]));
  const done = await ws.cli(['run', small, '--json']);
  smallRun = (lastJson(done.stdout) as { runId: string }).runId;
});
afterAll(() => ws.cleanup());

describe('weft runs list', () => {
  it('filters, searches in the database and shows duration, tokens and cost', async () => {
    const [table, searched, child, byFlow, none, json] = await Promise.all([
      ws.cli(['runs', 'list']),
      ws.cli(['runs', 'list', '--search', 'solar 1597', '--json']),
      ws.cli(['runs', 'list', '--all', '--flow', 'summarize-text', '--json']),
      ws.cli(['runs', 'list', '--flow', 'small', '--version', '1', '--status', 'completed,failed', '--since', '1h']),
      ws.cli(['runs', 'list', '--until', '2000-01-01', '--backend', 'inprocess']),
      ws.cli(['runs', 'list', '--json']),
    ]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +FLOW +STATUS +BACKEND +STARTED +DURATION +TOKENS +COST$/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${agentRun} +research-agent@1 +completed +inprocess .* [\\d.]+m?s +\\d+→\\d+ +\\$0$`),
      ),
    );
    // Child runs only with --all.
    expect(lines.some((line) => line.includes('summarize-text'))).toBe(false);

    expect((JSON.parse(searched.stdout) as { runId: string }[]).map((run) => run.runId)).toEqual([agentRun]);
    const children = JSON.parse(child.stdout) as { parentRunId: string; status: string }[];
    expect(children).toEqual([expect.objectContaining({ parentRunId: agentRun, status: 'completed' })]);
    expect(byFlow.stdout).toContain(smallRun);
    expect(byFlow.stdout).not.toContain(agentRun);
    expect(none.stdout).toBe('no runs match\n');
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.find((row) => row.runId === smallRun)).toMatchObject({
      flowId: 'small',
      status: 'completed',
      durationMs: expect.any(Number),
      tokens: { input: 0, output: 0 },
      costUsd: 0,
      unpricedModels: [],
    });
  });

  it('refuses bad filters, naming the flag', async () => {
    const [since, limit, status, range] = await Promise.all([
      ws.cli(['runs', 'list', '--since', 'yesterday']),
      ws.cli(['runs', 'list', '--limit', '500']),
      ws.cli(['runs', 'list', '--status', 'done']),
      ws.cli(['runs', 'list', '--since', '1h', '--until', '2h']),
    ]);
    expect(since.code).toBe(64);
    expect(since.stderr).toContain(
      "--since must be an ISO date or time (2026-01-05, 2026-01-05T14:00) or a time ago (30m, 2h, 7d), got 'yesterday'",
    );
    expect(limit.stderr).toContain('--limit must be at most 200');
    expect(status.stderr).toContain("unknown status 'done'");
    expect(range.stderr).toContain('--until must be after --since');
  });
});

describe('weft runs show --at / --timeline', () => {
  it('prints the state after an event, the timeline with tokens and cost, and refuses a seq past the end', async () => {
    const events = (
      JSON.parse((await ws.cli(['runs', 'show', agentRun, '--json'])).stdout) as {
        events: { seq: number; type: string; stepId?: string }[];
      }
    ).events;
    // The moment the second turn's tool calls had been requested, none answered yet.
    const second = events.find((event) => event.type === 'step.completed' && event.stepId === 'research/llm#2')!;
    const last = events.at(-1)!.seq;
    const [at, atJson, timeline, timelineJson, past, both, notSeq] = await Promise.all([
      ws.cli(['runs', 'show', agentRun, '--at', String(second.seq)]),
      ws.cli(['runs', 'show', agentRun, '--at', String(second.seq), '--json']),
      ws.cli(['runs', 'show', agentRun, '--timeline']),
      ws.cli(['runs', 'show', agentRun, '--timeline', '--json']),
      ws.cli(['runs', 'show', agentRun, '--at', String(last + 1)]),
      ws.cli(['runs', 'show', agentRun, '--at', '1', '--timeline']),
      ws.cli(['runs', 'show', agentRun, '--at', 'last']),
    ]);
    expect(at.code, at.stderr).toBe(0);
    expect(at.stdout).toContain(`event ${second.seq} of ${last}: step.completed research/llm#2`);
    expect(at.stdout).toMatch(/^status +running$/m);
    expect(at.stdout).toMatch(/^research\/llm#2 +model-turn +completed /m);
    expect(at.stdout).not.toContain('research/tool#2.0');
    const state = lastJson(atJson.stdout) as { seq: number; state: { seq: number; status: string; order: string[] } };
    expect(state.seq).toBe(second.seq);
    expect(state.state.seq).toBe(second.seq);
    expect(state.state.order.at(-1)).toBe('research/llm#2');

    expect(timeline.code, timeline.stderr).toBe(0);
    expect(timeline.stdout).toMatch(/^BAR +KIND +STATUS +START +DURATION +WAITED +ATTEMPTS +TOKENS +COST$/m);
    expect(timeline.stdout).toMatch(/^research +step +completed +\+\d+ms .* 1 +\d+→\d+ +\$0 \(fixture\)$/m);
    expect(timeline.stdout).toMatch(/^ {2}turn 2 +model-turn +completed +\+[\d.]+m?s /m);
    expect(timeline.stdout).toMatch(/^ {4}child run · summarize-text \(\S+\) +child-run +completed /m);
    expect(timeline.stdout).toMatch(/child {2}1/); // the flow tool waited on its child run
    const bars = (lastJson(timelineJson.stdout) as { bars: { kind: string }[] }).bars;
    expect(bars[0]?.kind).toBe('run');
    expect(bars.filter((bar) => bar.kind === 'model-turn').length).toBeGreaterThanOrEqual(3);

    expect(past.code).toBe(1);
    expect(past.stderr).toContain(`--at: run '${agentRun}' has events up to ${last}, not ${last + 1}`);
    expect(both.code).toBe(64);
    expect(notSeq.code).toBe(64);
    expect(notSeq.stderr).toContain("--at must be an event's seq (a non-negative integer), got 'last'");
  });
});

describe('against a server', () => {
  let services: ApiServices;
  let server: RunningServer;
  beforeAll(async () => {
    services = await createServices({ dataDir: join(ws.dir, 'server-data'), env: { WEFT_LOG_LEVEL: 'silent' } });
    server = await startServer({ services, port: 0, host: '127.0.0.1' });
    // The agent's flow tool: a server finds flows in its own flow store.
    await services.store.flows.save(JSON.parse(await readFile(join(examples, 'summarize-text.json'), 'utf8')));
  });
  afterAll(async () => {
    await server?.close();
    await services?.close();
  });

  it('lists, searches, scrubs and draws the timeline of the server’s runs', async () => {
    const runId = await runExample('research-agent', ['--server', server.url]);
    const events = await services.store.readEvents(runId);
    const [list, missing, at, timeline] = await Promise.all([
      ws.cli(['runs', 'list', '--server', server.url, '--search', 'solar', '--json']),
      ws.cli(['runs', 'list', '--server', server.url, '--search', 'nowhere-to-be-found']),
      ws.cli(['runs', 'show', runId, '--server', server.url, '--at', String(events[2]!.seq), '--json']),
      ws.cli(['runs', 'show', runId, '--server', server.url, '--timeline']),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { runId: string }[]).map((run) => run.runId)).toEqual([runId]);
    expect(missing.stdout).toBe('no runs match\n');
    expect((lastJson(at.stdout) as { state: { seq: number } }).state.seq).toBe(events[2]!.seq);
    expect(timeline.code, timeline.stderr).toBe(0);
    expect(timeline.stdout).toMatch(/^research +step +completed /m);
  });
});
