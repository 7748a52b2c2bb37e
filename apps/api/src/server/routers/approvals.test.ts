import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  approvalFlow,
  greetFlow,
  type TestServer,
  testServices,
  waitForApproval,
  waitForStatus,
} from '../test-support.ts';

let server: TestServer;

beforeEach(async () => {
  server = await testServices();
  await server.services.store.flows.save(approvalFlow);
  await server.services.store.flows.save(greetFlow);
});
afterEach(async () => {
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<TRPCError & { paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    const cause = (error as TRPCError).cause as { issues?: { path: PropertyKey[] }[] } | undefined;
    const paths = cause?.issues?.map((issue) => issue.path.map(String).join('.')) ?? [];
    return Object.assign(error as TRPCError, { paths });
  }
  throw new Error('expected the call to fail');
}

async function waitingRun(name = 'B') {
  const { runId } = await server.caller().runs.start({ flowId: 'ship', input: { name } });
  await waitForApproval(server.services, runId, 'gate');
  return runId;
}

describe('approvals.list', () => {
  it('lists pending approvals across runs with prompt, run and flow', async () => {
    const a = await waitingRun('A');
    const b = await waitingRun('B');
    const api = server.caller();
    const all = await api.approvals.list();
    expect(all.map((approval) => approval.runId).sort()).toEqual([a, b].sort());
    const one = await api.approvals.list({ runId: a });
    expect(one).toEqual([
      expect.objectContaining({
        runId: a,
        stepId: 'gate',
        prompt: 'Ship A?',
        run: expect.objectContaining({ id: a, status: 'waiting' }),
        flow: { id: 'ship', version: 1, name: 'Ship it' },
      }),
    ]);
    await api.approvals.decide({ runId: a, stepId: 'gate', approved: true });
    await waitForStatus(server.services, a, ['completed']);
    expect((await api.approvals.list()).map((approval) => approval.runId)).toEqual([b]);
    expect((await failure(api.approvals.list({ runId: 5 as never }))).paths).toEqual(['runId']);
  });
});

describe('approvals.decide', () => {
  it('approves: the run resumes to its end and records who decided', async () => {
    const runId = await waitingRun();
    const result = await server
      .caller('alice')
      .approvals.decide({ runId, stepId: 'gate', approved: true, comment: 'ok' });
    expect(result).toEqual({ accepted: true, runId, stepId: 'gate', approved: true, by: 'alice' });
    await waitForStatus(server.services, runId, ['completed']);
    const { run, state } = await server.caller().runs.get({ runId });
    expect(run.output).toEqual({ shipped: true });
    const resolved = (await server.services.store.readEvents(runId)).find((e) => e.type === 'approval.resolved');
    expect(resolved).toMatchObject({ approved: true, by: 'alice', comment: 'ok' });
    expect(state.status).toBe('completed');
  });

  it('rejects; an anonymous decision is by "api"', async () => {
    const runId = await waitingRun();
    const result = await server.caller().approvals.decide({ runId, stepId: 'gate', approved: false });
    expect(result.by).toBe('api');
    await waitForStatus(server.services, runId, ['completed']);
    expect((await server.caller().runs.get({ runId })).run.output).toEqual({ shipped: false });
  });

  it('of two concurrent decisions exactly one wins; the other gets CONFLICT naming the winner', async () => {
    const runId = await waitingRun();
    const results = await Promise.allSettled([
      server.caller('alice').approvals.decide({ runId, stepId: 'gate', approved: true }),
      server.caller('bob').approvals.decide({ runId, stepId: 'gate', approved: false }),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<{ by: string }>).value.by;
    const error = (lost[0] as PromiseRejectedResult).reason as TRPCError;
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(`by ${winner}`);
    await waitForStatus(server.services, runId, ['completed']);
    const resolved = (await server.services.store.readEvents(runId)).filter((e) => e.type === 'approval.resolved');
    expect(resolved).toHaveLength(1);
    // A late decision is a CONFLICT too.
    const late = await failure(server.caller('carol').approvals.decide({ runId, stepId: 'gate', approved: true }));
    expect(late.code).toBe('CONFLICT');
    expect(late.message).toContain(`by ${winner}`);
  });

  it('refuses unknown runs and steps with NOT_FOUND, a cancelled run with CONFLICT, bad input naming the field', async () => {
    const api = server.caller();
    const runId = await waitingRun();
    const unknownRun = await failure(api.approvals.decide({ runId: 'run_nope', stepId: 'gate', approved: true }));
    expect(unknownRun.code).toBe('NOT_FOUND');
    expect(unknownRun.message).toContain('run_nope');
    const unknownStep = await failure(api.approvals.decide({ runId, stepId: 'nope', approved: true }));
    expect(unknownStep.code).toBe('NOT_FOUND');
    expect(unknownStep.message).toContain("'nope'");
    expect((await failure(api.approvals.decide({ runId, stepId: 'gate' } as never))).paths).toEqual(['approved']);
    expect((await failure(api.approvals.decide({ runId, stepId: 'gate', approved: 'yes' } as never))).paths).toEqual([
      'approved',
    ]);
    await api.runs.cancel({ runId });
    const cancelled = await failure(api.approvals.decide({ runId, stepId: 'gate', approved: true }));
    expect(cancelled.code).toBe('CONFLICT');
    expect(cancelled.message).toContain('cancelled');
  });
});
