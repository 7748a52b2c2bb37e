/**
 * Runs: start, list, get, cancel, resume, re-run, delete, and two subscriptions — one run's
 * events (stored, then live; resumable by last event id) and run-status changes for lists.
 * Executions run in the background: a procedure returns once the run is recorded.
 */

import { TRPCError, tracked } from '@trpc/server';
import type { ExternalBackend, ExternalBackendName } from '@weft/adapters/backends';
import { InputInvalidError, InputTooLargeError, RunBusyError, RunnerClosedError } from '@weft/adapters/inprocess';
import type { RunRecord } from '@weft/adapters/store';
import {
  type Fixtures,
  type Flow,
  FlowInvalidError,
  isFinalStatus,
  type Json,
  RUN_STATUSES,
  type RunStatus,
  runState,
} from '@weft/engine';
import { ZodRealError, z } from 'zod';
import type { ApiContext } from '../context.ts';
import { procedure, router } from '../trpc.ts';
import { backendSetting } from './backends.ts';

const runId = z.string().min(1).max(200);
const runStatus = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);

/** What a procedure shows of a run: never its owner lease, never anything secret. */
export function publicRun(run: RunRecord) {
  return {
    id: run.id,
    flowId: run.flowId,
    flowVersion: run.flowVersion,
    status: run.status,
    backend: run.backend,
    input: run.input,
    output: run.output,
    error: run.error,
    parentRunId: run.parentRunId,
    parentStepId: run.parentStepId,
    hasFixtures: run.fixtures !== null,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

export async function requireRun(ctx: ApiContext, id: string): Promise<RunRecord> {
  const run = await ctx.services.store.getRun(id);
  if (!run) throw new TRPCError({ code: 'NOT_FOUND', message: `runId: unknown run '${id}'` });
  return run;
}

/**
 * A BAD_REQUEST whose `data.issues` name each field, like a zod input failure (ZodRealError:
 * a plain `new ZodError` is not an Error, and tRPC would wrap it). Paths are dotted; one that
 * does not start with `prefix` gets it put in front.
 */
function badRequest(message: string, issues: readonly { path: string; message: string }[], prefix: string) {
  const cause = new ZodRealError(
    issues.map((issue) => ({
      code: 'custom' as const,
      path: (issue.path === prefix || issue.path.startsWith(`${prefix}.`) ? issue.path : `${prefix}.${issue.path}`)
        .replace(/\.$/, '')
        .split('.'),
      message: issue.message,
      input: undefined,
    })),
  );
  return new TRPCError({ code: 'BAD_REQUEST', message, cause });
}

/** The runner's refusals as 4xx errors; anything else goes up as is. */
function creationError(error: unknown): unknown {
  if (error instanceof InputInvalidError) return badRequest(error.message, error.issues, 'input');
  if (error instanceof InputTooLargeError)
    return badRequest(error.message, [{ path: 'input', message: error.message }], 'input');
  if (error instanceof FlowInvalidError)
    return badRequest(
      error.message,
      error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      'flow',
    );
  return error;
}

/** Executes a run without waiting for it; a failure to execute is logged, never thrown. */
export function executeInBackground(ctx: ApiContext, id: string): void {
  const { runner, log } = ctx.services;
  runner.execute(id).then(
    (outcome) => log.info({ runId: id, status: outcome.status }, 'run execution ended'),
    (error: unknown) => {
      if (error instanceof RunBusyError || error instanceof RunnerClosedError)
        log.info({ runId: id, reason: (error as Error).message }, 'run not executed here');
      else log.error({ err: error, runId: id }, 'run execution failed');
    },
  );
}

/**
 * A run validated and recorded by the runner's create (with the engine's name as its backend),
 * started on that engine under the same id. If the engine refuses it, the run ends failed.
 */
async function handOver(ctx: ApiContext, id: string, external: ExternalBackend): Promise<void> {
  const run = await ctx.services.store.getRun(id);
  if (!run) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `run ${id} disappeared` });
  try {
    await external.start({
      runId: id,
      flow: run.flow as unknown as Flow,
      input: run.input,
      ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
    });
  } catch (error) {
    const message = `${external.name} did not accept the run: ${error instanceof Error ? error.message : String(error)}`;
    await ctx.services.store.updateRun(id, { status: 'failed', error: { name: 'BackendError', message } });
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message });
  }
}

export const runsRouter = router({
  start: procedure
    .input(
      z.object({
        flowId: z.string().min(1).max(200),
        version: z.number().int().positive().optional(),
        input: z.json().optional(),
        backend: z.enum(['inprocess', 'temporal', 'inngest']).optional(),
        fixtures: z.record(z.string(), z.array(z.json())).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const record = await ctx.services.store.flows.get(input.flowId, input.version);
      if (!record) {
        const which = input.version === undefined ? `'${input.flowId}'` : `'${input.flowId}' version ${input.version}`;
        throw new TRPCError({ code: 'NOT_FOUND', message: `flowId: unknown flow ${which}` });
      }
      const external =
        input.backend && input.backend !== 'inprocess' ? ctx.services.backends.get(input.backend) : undefined;
      if (input.backend && input.backend !== 'inprocess' && !external) {
        const available = ['inprocess', ...ctx.services.backends.keys()].join(', ');
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: `backend: ${input.backend} is not available (${backendSetting(input.backend)} is not set on the server); available: ${available}`,
        });
      }
      let id: string;
      try {
        id = await ctx.services.runner.create(record.doc, (input.input ?? {}) as Json, {
          ...(input.fixtures ? { fixtures: input.fixtures as never } : {}),
          ...(external ? { backend: external.name } : {}),
        });
      } catch (error) {
        throw creationError(error);
      }
      if (external) await handOver(ctx, id, external);
      else executeInBackground(ctx, id);
      return { runId: id };
    }),

  list: procedure
    .input(
      z
        .object({
          flowId: z.string().min(1).optional(),
          status: z.union([runStatus, z.array(runStatus)]).optional(),
          backend: z.string().min(1).optional(),
          /** Runs created at or after this time (ms epoch). */
          since: z.number().int().nonnegative().optional(),
          limit: z.number().int().min(1).max(1000).optional(),
        })
        .optional(),
    )
    .query(async ({ ctx, input = {} }) => {
      const runs = await ctx.services.store.listRuns({
        ...(input.flowId ? { flowId: input.flowId } : {}),
        ...(input.status ? { status: Array.isArray(input.status) ? input.status : [input.status] } : {}),
        ...(input.backend ? { backend: input.backend } : {}),
        ...(input.since !== undefined ? { since: input.since } : {}),
        limit: input.limit ?? 100,
      });
      return runs.map(publicRun);
    }),

  get: procedure.input(z.object({ runId })).query(async ({ ctx, input }) => {
    const run = await requireRun(ctx, input.runId);
    const events = await ctx.services.store.readEvents(run.id);
    const link = ctx.services.backends.get(run.backend as ExternalBackendName)?.link(run.id);
    return { run: { ...publicRun(run), flow: run.flow, ...(link ? { link } : {}) }, state: runState(events) };
  }),

  cancel: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    const target = await requireRun(ctx, input.runId);
    const external = ctx.services.backends.get(target.backend as ExternalBackendName);
    if (external) {
      // The engine cancels the run; its cleanup records run.cancelled (the poller publishes it).
      if (!isFinalStatus(target.status)) await external.cancel(target.id);
      return { runId: target.id, status: target.status };
    }
    await ctx.services.runner.cancel(input.runId);
    // A parked run (and its parked children) are cancelled by a direct store write: announce it.
    await ctx.services.bus.refresh(input.runId);
    for (const child of await ctx.services.store.listRuns({ parentRunId: input.runId }))
      await ctx.services.bus.refresh(child.id);
    const run = await requireRun(ctx, input.runId);
    return { runId: run.id, status: run.status };
  }),

  resume: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    const run = await requireRun(ctx, input.runId);
    if (isFinalStatus(run.status))
      throw new TRPCError({ code: 'CONFLICT', message: `run '${run.id}' is ${run.status}; it cannot be resumed` });
    // An external engine resumes its runs by itself (whenever a worker or the server is up).
    if (!ctx.services.backends.has(run.backend as ExternalBackendName)) executeInBackground(ctx, run.id);
    return { runId: run.id };
  }),

  rerun: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    const run = await requireRun(ctx, input.runId);
    // On the engine the original ran on, when this server still has it.
    const external = ctx.services.backends.get(run.backend as ExternalBackendName);
    let id: string;
    try {
      // The pinned snapshot: the same flow version, whatever was saved since.
      id = await ctx.services.runner.create(run.flow, run.input, {
        ...(run.fixtures ? { fixtures: run.fixtures as never } : {}),
        ...(external ? { backend: external.name } : {}),
      });
    } catch (error) {
      throw creationError(error);
    }
    if (external) await handOver(ctx, id, external);
    else executeInBackground(ctx, id);
    return { runId: id };
  }),

  delete: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    const run = await requireRun(ctx, input.runId);
    if (!isFinalStatus(run.status))
      throw new TRPCError({
        code: 'CONFLICT',
        message: `run '${run.id}' is ${run.status}; cancel it before deleting it`,
      });
    const deleted = await ctx.services.store.deleteRun(run.id);
    if (!deleted) throw new TRPCError({ code: 'NOT_FOUND', message: `runId: unknown run '${run.id}'` });
    return { runId: run.id, deleted: true };
  }),

  /**
   * One run's events: the stored ones after `lastEventId` (the seq of the last event the client
   * has), then live ones; ends after the run's end event. Each is tracked by its seq, so a
   * reconnecting client resumes exactly where it stopped.
   */
  events: procedure
    .input(
      z.object({
        runId,
        lastEventId: z.string().regex(/^\d+$/, 'must be the seq of an event (a non-negative integer)').nullish(),
      }),
    )
    .subscription(async function* ({ ctx, input, signal }) {
      await requireRun(ctx, input.runId);
      const after = input.lastEventId ? Number(input.lastEventId) : 0;
      for await (const event of ctx.services.bus.subscribe(input.runId, after, signal ? { signal } : {})) {
        yield tracked(String(event.seq), event);
      }
    }),

  /** Status changes of runs, for run lists (optionally of one flow). */
  statusChanges: procedure
    .input(z.object({ flowId: z.string().min(1).optional() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      for await (const change of ctx.services.bus.statusChanges(signal ? { signal } : {})) {
        if (input?.flowId && change.flowId !== input.flowId) continue;
        yield change;
      }
    }),
});
