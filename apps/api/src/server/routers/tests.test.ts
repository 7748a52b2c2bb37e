/**
 * tests.save / build / list / run through createCaller: a completed run saved as a case file in
 * the server's tests folder, listed, run offline against the flow table (passing, then failing
 * with its first difference after the flow changes), with errors that name the field.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TRPCError } from '@trpc/server';
import { formatTestCase } from '@weft/adapters/testing';
import type { JsonObject } from '@weft/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices } from '../services.ts';
import { type FlowDoc, type TestServer, testServices, waitForApproval, waitForStatus } from '../test-support.ts';

const steps: JsonObject[] = [
  { id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'a quote for {{ input.item }}' },
  { id: 'gate', type: 'approval', prompt: 'send it?' },
  { id: 'reply', type: 'transform', value: { text: '=steps.ask.output.text', sent: '=steps.gate.output.approved' } },
];
const quote: FlowDoc = { irVersion: 1, id: 'quote', name: 'Quote', steps, output: '=steps.reply.output' };

let server: TestServer;
let testsDir: string;
beforeEach(async () => {
  testsDir = await mkdtemp(join(tmpdir(), 'weft-tests-'));
  server = await testServices({ testsDir });
  await server.services.store.flows.save(quote);
});
afterEach(async () => {
  await server.close();
  await rm(testsDir, { recursive: true, force: true });
});

/** A run of `quote` that completed, its approval decided through the API. */
async function completedRun(): Promise<string> {
  const api = server.caller('ana');
  const { runId } = await api.runs.start({ flowId: 'quote', input: { item: 'tea' } });
  await waitForApproval(server.services, runId, 'gate');
  await api.approvals.decide({ runId, stepId: 'gate', approved: true });
  expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
  return runId;
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string; paths: string[] }> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCError);
  const cause = (error as TRPCError).cause as { issues?: { path: PropertyKey[] }[] } | undefined;
  return {
    code: (error as TRPCError).code,
    message: (error as TRPCError).message,
    paths: cause?.issues?.map((issue) => issue.path.map(String).join('.')) ?? [],
  };
}

describe('tests router', () => {
  it('saves a run as a case file, lists it, and runs it offline', async () => {
    const api = server.caller();
    const runId = await completedRun();
    const saved = await api.tests.save({ runId, name: 'Tea quote' });
    expect(saved.file).toBe('quote-tea-quote.json');
    expect(saved.replaced).toBe(false);
    expect(saved.case).toMatchObject({
      name: 'Tea quote',
      flow: { id: 'quote', version: 1 },
      match: ['steps', 'output'],
      input: { item: 'tea' },
      expect: { steps: ['ask', 'ask/llm#1', 'gate', 'reply'], output: { text: 'a quote for tea', sent: true } },
      approvals: { gate: { approved: true, by: 'ana' } },
    });
    expect(await readFile(join(testsDir, saved.file), 'utf8')).toBe(formatTestCase(saved.case));
    expect((await api.tests.save({ runId, name: 'Tea quote' })).replaced).toBe(true);

    expect(await api.tests.list()).toEqual([
      { name: 'Tea quote', file: 'quote-tea-quote.json', flowId: 'quote', flowVersion: 1, match: ['steps', 'output'] },
    ]);
    expect(await api.tests.list({ flowId: 'other' })).toEqual([]);
    expect(await api.tests.run()).toEqual([
      {
        name: 'Tea quote',
        file: 'quote-tea-quote.json',
        flowId: 'quote',
        passed: true,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('refuses to overwrite another case that maps to the same file, unless asked', async () => {
    const api = server.caller();
    const runId = await completedRun();
    await api.tests.save({ runId, name: 'Same file' });
    // `same file!` slugs to the same file as `Same file`.
    const clash = await refusal(api.tests.save({ runId, name: 'same file!' }));
    expect(clash.code).toBe('CONFLICT');
    expect(clash.message).toBe(
      "test 'same file!' would overwrite test 'Same file' in quote-same-file.json (both names give that file): " +
        'choose another name, or pass overwrite (--force) to replace it',
    );
    expect((await api.tests.list()).find((listed) => listed.file === 'quote-same-file.json')?.name).toBe('Same file');
    const replaced = await api.tests.save({ runId, name: 'same file!', overwrite: true });
    expect(replaced).toMatchObject({ file: 'quote-same-file.json', replaced: true });
    expect((await api.tests.list()).find((listed) => listed.file === 'quote-same-file.json')?.name).toBe('same file!');
  });

  it('fails a case once the flow changes, with its first difference', async () => {
    const api = server.caller();
    await api.tests.save({ runId: await completedRun(), match: ['output'] });
    await server.services.store.flows.save({
      ...quote,
      steps: steps.map((step) =>
        step.id === 'reply' ? { ...step, value: { text: '=steps.ask.output.text', sent: false } } : step,
      ),
    });
    const [result] = await api.tests.run({ flowId: 'quote' });
    expect(result).toMatchObject({ passed: false, firstDifference: 'output.sent: expected true, got false' });
  });

  it('builds a case without writing it', async () => {
    const built = await server.caller().tests.build({ runId: await completedRun(), match: ['output-schema'] });
    expect(built.file).toMatch(/^quote-[0-9a-f]{8}\.json$/);
    expect(built.case.expect.outputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' }, sent: { type: 'boolean' } },
      required: ['text', 'sent'],
    });
    expect(await readdir(testsDir)).toEqual([]);
  });

  it('lists and reports an invalid file with its error, and runs only the files named', async () => {
    const api = server.caller();
    await api.tests.save({ runId: await completedRun(), name: 'good' });
    await writeFile(join(testsDir, 'broken.json'), '{ "weftTest": 1, "name": "broken" }');
    const listed = await api.tests.list();
    expect(listed.map((entry) => [entry.file, entry.error === undefined])).toEqual([
      ['broken.json', false],
      ['quote-good.json', true],
    ]);
    expect(listed[0]?.error).toMatch(/^broken\.json is not a valid test case: flow: /);
    const results = await api.tests.run({ files: ['quote-good.json'] });
    expect(results.map((result) => [result.file, result.passed])).toEqual([['quote-good.json', true]]);
    expect((await api.tests.run()).map((result) => [result.file, result.passed])).toEqual([
      ['broken.json', false],
      ['quote-good.json', true],
    ]);
  });

  it('names the field of every refusal', async () => {
    const api = server.caller();
    const unknown = await refusal(api.tests.save({ runId: 'run_nope' }));
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', message: "runId: unknown run 'run_nope'" });

    const { runId } = await api.runs.start({ flowId: 'quote', input: { item: 'tea' } });
    await waitForApproval(server.services, runId, 'gate');
    const waiting = await refusal(api.tests.save({ runId }));
    expect(waiting).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: `runId: run ${runId} is waiting, not completed: only a completed run can be saved as a test`,
    });

    const badMatch = await refusal(api.tests.save({ runId, match: ['everything' as 'output'] }));
    expect(badMatch).toMatchObject({ code: 'BAD_REQUEST', paths: ['match.0'] });
    const traversal = await refusal(api.tests.run({ files: ['../secrets.json'] }));
    expect(traversal).toMatchObject({ code: 'BAD_REQUEST', paths: ['files.0'] });
    const missing = await refusal(api.tests.run({ files: ['nope.json'] }));
    expect(missing).toMatchObject({
      code: 'BAD_REQUEST',
      message: "files.0: no test case 'nope.json' in the tests folder",
      paths: ['files.0'],
    });
  });
});

describe('the tests folder', () => {
  it('is WEFT_TESTS_DIR, else tests/ under the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-api-'));
    try {
      const fromEnv = await createServices({ dataDir: dir, env: { NODE_ENV: 'test', WEFT_TESTS_DIR: 'qa/cases' } });
      expect(fromEnv.testsDir).toBe(resolve('qa/cases'));
      await fromEnv.close();
      const byDefault = await createServices({ dataDir: dir, env: { NODE_ENV: 'test' } });
      expect(byDefault.testsDir).toBe(resolve('tests'));
      await byDefault.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
