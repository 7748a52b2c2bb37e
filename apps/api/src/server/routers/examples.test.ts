import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXAMPLES_DIR } from '../examples/catalog.ts';
import { type TestServer, testServices, waitForStatus } from '../test-support.ts';

const example = (name: string) => readFile(join(DEFAULT_EXAMPLES_DIR, `${name}.json`), 'utf8');

async function failure(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe('examples router and importing flows with their sub-flows', () => {
  let server: TestServer;
  let caller: ReturnType<TestServer['caller']>;

  beforeAll(async () => {
    server = await testServices();
    caller = server.caller();
  });
  afterAll(() => server.close());

  it('lists every example with what a card shows', async () => {
    const list = await caller.examples.list();
    expect(list.map((entry) => entry.id)).toContain('support-triage');
    const research = list.find((entry) => entry.id === 'research-agent')!;
    expect(research).toMatchObject({
      name: 'Research agent',
      subFlows: ['summarize-text'],
      demoApi: 'http://127.0.0.1:8787',
      inWorkspace: false,
    });
    expect(research.stepTypes).toContain('llm');
    expect(research.toolKinds.sort()).toEqual(['flow', 'http', 'source']);
    expect(list.find((entry) => entry.id === 'invoice-approval')?.approvals).toBe(true);
  });

  it('runs an example offline on its recorded turns, saving it first', async () => {
    const { runId, saved } = await caller.examples.run({ id: 'support-triage' });
    expect(saved).toEqual(['support-triage']);
    expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
    const again = await caller.examples.run({ id: 'support-triage' });
    expect(again.saved).toEqual([]);
  });

  it('copies an example with the sub-flow it spawns, sub-flow first', async () => {
    const { flowId, saved } = await caller.examples.copy({ id: 'weekly-digest' });
    expect(flowId).toBe('weekly-digest');
    expect(saved).toEqual(['summarize-text', 'weekly-digest']);
    expect((await caller.examples.list()).find((entry) => entry.id === 'weekly-digest')?.inWorkspace).toBe(true);
  });

  it('answers the demo API calls from a recording when the demo API is not up', async () => {
    expect((await caller.examples.list()).find((entry) => entry.id === 'status-poll')?.recorded).toBe(true);
    const { runId, fromRecording } = await caller.examples.run({ id: 'status-poll' });
    expect(fromRecording).toBe(true);
    expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
    expect((await server.services.store.getRun(runId))?.output).toMatchObject({ status: 'done', polls: 3 });
    for (const id of ['research-agent', 'weekly-digest']) {
      const recorded = await caller.examples.run({ id });
      expect(await waitForStatus(server.services, recorded.runId, ['completed', 'failed']), id).toBe('completed');
    }
    expect((await failure(caller.examples.run({ id: 'nope' }))).message).toMatch(/^id: no example 'nope'/);
  });

  it('says what to start for an example that needs the demo API and has no recording', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-examples-'));
    for (const file of ['status-poll.json', 'status-poll.input.json'])
      await copyFile(join(DEFAULT_EXAMPLES_DIR, file), join(dir, file));
    const bare = await testServices({ examplesDir: dir });
    try {
      const error = await failure(bare.caller().examples.run({ id: 'status-poll' }));
      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.message).toMatch(/demo API at http:\/\/127\.0\.0\.1:8787.*WEFT_HTTP_ALLOW_PRIVATE=1/);
    } finally {
      await bare.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the flow an imported file uses and lacks, then imports it from the examples or another file', async () => {
    const fresh = await testServices();
    try {
      const api = fresh.caller();
      const files = [{ name: 'research-agent.json', json: await example('research-agent') }];
      const first = await api.flows.importFiles({ files });
      expect(first).toEqual({
        imported: [],
        missing: [{ flow: 'summarize-text', neededBy: 'research-agent', inExamples: true }],
      });
      expect(await api.flows.list()).toEqual([]);
      // Picked together: sub-flow first whatever the order of the files.
      const both = await api.flows.importFiles({
        files: [...files, { name: 'summarize-text.json', json: await example('summarize-text') }],
      });
      expect(both.imported.map((flow) => [flow.id, flow.created])).toEqual([
        ['summarize-text', true],
        ['research-agent', true],
      ]);
    } finally {
      await fresh.close();
    }
  });

  it('imports missing flows from the examples when asked, and a file holding several flows', async () => {
    const fresh = await testServices();
    try {
      const api = fresh.caller();
      const research = { name: 'research-agent.json', json: await example('research-agent') };
      const fromExamples = await api.flows.importFiles({ files: [research], fromExamples: true });
      expect(fromExamples.imported.map((flow) => flow.id)).toEqual(['summarize-text', 'research-agent']);
      const bundle = JSON.stringify([
        JSON.parse(await example('weekly-digest')),
        JSON.parse(await example('doc-summary')),
      ]);
      const both = await api.flows.importFiles({ files: [{ name: 'bundle.json', json: bundle }] });
      expect(both.imported.map((flow) => flow.id)).toEqual(['weekly-digest', 'doc-summary']);
      const broken = await failure(api.flows.importFiles({ files: [{ name: 'x.json', json: '{"id": 1}' }] }));
      expect(broken.message).toBe("x.json: id must be a string (the flow's id)");
    } finally {
      await fresh.close();
    }
  });
});
