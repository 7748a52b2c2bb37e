/**
 * Runs as tests from the real CLI: every example is run (against the demo API on loopback,
 * with its fixtures; approvals approved) and saved with `weft runs save-test`; then, with the demo API stopped and
 * no model keys, `weft test` runs every case offline and each passes. After one step of one
 * example flow is changed (in a copy of the flows folder), that case fails with its first
 * difference while the others still pass.
 */
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DemoApi, loadExamples, startDemoApi, withApiBase } from '@weft/adapters/conformance';
import { directoryFlowSource } from '@weft/adapters/inprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../src/runtime.ts';
import { lastJson, type Workspace, workspace } from './helpers.ts';

const examples = [...loadExamples().values()];
const NO_NETWORK = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, WEFT_HTTP_ALLOW_PRIVATE: '1' };

let ws: Workspace;
let api: DemoApi;
/** The run id each example's saved case came from, and a run that parked at an approval. */
const runIds = new Map<string, string>();
let parkedRunId = '';

beforeAll(async () => {
  ws = await workspace();
  api = await startDemoApi();
  await mkdir(join(ws.dir, 'flows'));
  for (const example of examples) await ws.write(`flows/${example.id}.json`, example.doc);
  // The runs are recorded in this process (what `weft run` does, without a process per example):
  // the same runtime over the workspace's store, the flows folder, the demo API on loopback.
  let deciding = true;
  const runtime = await openRuntime({
    dataDir: ws.data,
    env: { ...process.env, WEFT_HTTP_ALLOW_PRIVATE: '1' },
    flows: () => directoryFlowSource(join(ws.dir, 'flows')),
    decide: async () => (deciding ? { approved: true, by: 'mira' } : undefined),
  });
  try {
    for (const example of examples) {
      const { runId } = await runtime.service.start({
        flow: example.doc,
        input: withApiBase(example.input, api.baseUrl),
        fixtures: withApiBase(example.fixtures, api.baseUrl),
      });
      runIds.set(example.id, runId);
    }
    await runtime.inprocess.settled();
    for (const [id, runId] of runIds) expect((await runtime.store.getRun(runId))?.status, id).toBe('completed');
    deciding = false;
    const invoice = examples.find((example) => example.id === 'invoice-approval')!;
    parkedRunId = (await runtime.service.start({ flow: invoice.doc, input: invoice.input, fixtures: invoice.fixtures }))
      .runId;
    await runtime.inprocess.settled();
  } finally {
    await runtime.close();
  }
}, 60_000);

afterAll(async () => {
  await api.close().catch(() => undefined);
  await ws.cleanup();
});

describe('weft runs save-test and weft test', () => {
  it('saves every example run as a case file, and refuses a run that has not completed', async () => {
    const saved = await Promise.all(
      examples.map((example) =>
        ws.cli([
          'runs',
          'save-test',
          runIds.get(example.id)!,
          '--name',
          example.id,
          ...(example.id === 'doc-summary' ? ['--match', 'steps,output,output-schema'] : []),
        ]),
      ),
    );
    for (const [index, result] of saved.entries()) {
      const id = examples[index]!.id;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`tests/${id}.json\n`);
      expect(result.stderr).toMatch(new RegExp(`^saved test '${id}' of ${id}@1: \\d+ recorded results?`));
    }
    const research = JSON.parse(await readFile(join(ws.dir, 'tests/research-agent.json'), 'utf8'));
    // The agent's model turns, its http and code tool calls, and the sub-flow tool as a spawn.
    expect(new Set(research.recorded.map((entry: { kind: string }) => entry.kind))).toEqual(
      new Set(['model-turn', 'http', 'code', 'spawn']),
    );
    const invoice = JSON.parse(await readFile(join(ws.dir, 'tests/invoice-approval.json'), 'utf8'));
    expect(invoice.approvals['gate/signoff']).toMatchObject({ approved: true });

    const refused = await ws.cli(['runs', 'save-test', parkedRunId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `run ${parkedRunId} is waiting, not completed: only a completed run can be saved as a test`,
    );
  });

  it('runs every case offline — demo API stopped, no model keys — and each passes', async () => {
    await api.close();
    // The recorded inputs point at the demo API's port, which now refuses connections.
    await expect(fetch(`${api.baseUrl}/articles`)).rejects.toThrow();

    const result = await ws.cli(['test', 'tests', '--flows', 'flows'], { env: NO_NETWORK });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    for (const example of examples)
      expect(result.stdout).toMatch(
        new RegExp(`^✓ +\\d+/${examples.length} ${example.id} \\(tests/${example.id}\\.json, `, 'm'),
      );
    expect(result.stdout).toContain(`${examples.length} cases: ${examples.length} passed, 0 failed`);
    expect(result.stderr).toContain(`running ${examples.length} test cases from tests against the flows in flows`);
  });

  it('catches a deliberately changed step: that case fails with its first difference, the others pass', async () => {
    await cp(join(ws.dir, 'flows'), join(ws.dir, 'changed'), { recursive: true });
    const file = join(ws.dir, 'changed/weekly-digest.json');
    const flow = JSON.parse(await readFile(file, 'utf8'));
    const assemble = flow.steps.find((step: { id: string }) => step.id === 'assemble');
    assemble.source = assemble.source.replace('return', 'return "changed: " +');
    await writeFile(file, JSON.stringify(flow, null, 2));

    const result = await ws.cli(['test', '--flows', 'changed', '--junit', 'junit.xml', '--json'], { env: NO_NETWORK });
    expect(result.code).toBe(1);
    const report = lastJson(result.stdout) as {
      passed: boolean;
      failed: number;
      results: { name: string; passed: boolean; firstDifference?: string }[];
    };
    expect(report).toMatchObject({ passed: false, failed: 1, total: examples.length });
    const difference =
      "step 'assemble' ran with input the case has no recorded result for (a code step): the flow or its input changed since the case was saved";
    for (const entry of report.results)
      expect(entry, entry.name).toMatchObject(
        entry.name === 'weekly-digest' ? { passed: false, firstDifference: difference } : { passed: true },
      );
    // The per-case lines went to stderr, the failure with its difference under it.
    expect(result.stderr).toMatch(
      /^✗ +\d+\/\d+ weekly-digest \(tests\/weekly-digest\.json, .*\)\n {6}step 'assemble' ran/m,
    );
    const junit = await readFile(join(ws.dir, 'junit.xml'), 'utf8');
    expect(junit).toContain(`tests="${examples.length}" failures="1" errors="0"`);
    expect(junit).toContain(
      `<failure message="step &apos;assemble&apos; ran with input the case has no recorded result`,
    );
  });

  it('says when there is nothing to test, apart from a failing case', async () => {
    const missing = await ws.cli(['test', 'no-such-folder']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no tests folder no-such-folder');
    const usage = await ws.cli(['test', '--junit']);
    expect(usage.code).toBe(64);
  });
});
