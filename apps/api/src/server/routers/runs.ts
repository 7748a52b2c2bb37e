/**
 * Runs: start, list, get, cancel, resume, re-run, delete, and two subscriptions — one run's
 * events (stored, then live; resumable by last event id) and run-status changes for lists. For
 * the run debugger: search (the runs screen's pages), a run's events a page at a time, its
 * state after any event, and what its model turns cost.
 * Each mutation goes through the run service (services.runs); executions run in the background,
 * so a procedure returns once the run is recorded and handed to its backend.
 */

import { TRPCError, tracked } from '@trpc/server';
import { InputInvalidError, InputTooLargeError, UnknownRunError } from '@weft/adapters/inprocess';
import {
  ApprovalClosedError,
  ApprovalNotFoundError,
  BackendRefusedError,
  BackendUnavailableError,
  costOf,
  costsOfRun,
  PriceConfigError,
  type ReplayRequest,
  RunEndedError,
  SideEffectsUnconfirmedError,
  TurnShapeError,
  turnsOf,
  UnknownCheckpointError,
  UnknownFlowVersionError,
} from '@weft/adapters/service';
import { InvalidCursorError, type RunRecord } from '@weft/adapters/store';
import {
  compareRuns,
  type Fixtures,
  FlowInvalidError,
  HANDOFF_TARGETS,
  isFinalStatus,
  type Json,
  RUN_STATUSES,
  type RunState,
  type RunStatus,
  runState,
} from '@weft/engine';
import { ZodRealError, z } from 'zod';
import type { ApiContext } from '../context.ts';
import { pageBudget, readEventPage } from '../run-pages.ts';
import { searchInput, searchRunSummaries } from '../run-summaries.ts';
import { procedure, router } from '../trpc.ts';

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
    replayOf: run.replayOf,
    handoff: run.handoff,
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

/** The run service's refusals as 4xx errors; anything else goes up as is. */
export function serviceError(error: unknown): unknown {
  if (error instanceof InputInvalidError) return badRequest(error.message, error.issues, 'input');
  if (error instanceof InputTooLargeError)
    return badRequest(error.message, [{ path: 'input', message: error.message }], 'input');
  if (error instanceof FlowInvalidError)
    return badRequest(
      error.message,
      error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      'flow',
    );
  if (error instanceof BackendUnavailableError) return new TRPCError({ code: 'BAD_REQUEST', message: error.message });
  if (error instanceof BackendRefusedError)
    return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: error.message, cause: error });
  if (error instanceof UnknownRunError)
    return new TRPCError({
      code: 'NOT_FOUND',
      message: `runId: ${error.message.replace(/^unknown run (.*)$/, "unknown run '$1'")}`,
    });
  if (error instanceof ApprovalNotFoundError) return new TRPCError({ code: 'NOT_FOUND', message: error.message });
  if (error instanceof UnknownCheckpointError) return new TRPCError({ code: 'BAD_REQUEST', message: error.message });
  // A malformed pin or fixture turn: its message starts with the field (`pins['agent/llm#1'].toolCalls`).
  if (error instanceof TurnShapeError) return new TRPCError({ code: 'BAD_REQUEST', message: error.message });
  if (error instanceof UnknownFlowVersionError) return new TRPCError({ code: 'NOT_FOUND', message: error.message });
  if (error instanceof SideEffectsUnconfirmedError)
    return new TRPCError({ code: 'PRECONDITION_FAILED', message: error.message });
  if (error instanceof ApprovalClosedError || error instanceof RunEndedError)
    return new TRPCError({ code: 'CONFLICT', message: error.message });
  if (error instanceof InvalidCursorError)
    return badRequest(error.message, [{ path: error.field, message: error.message }], error.field);
  // The server's own configuration: not the caller's fault, but the caller should read why.
  if (error instanceof PriceConfigError)
    return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: error.message, cause: error });
  return error;
}

/** Runs a service call, its refusals turned into tRPC errors. */
export async function viaService<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw serviceError(error);
  }
}

const checkpointId = z.string().min(1).max(500);
const replayInput = z.object({
  runId,
  from: checkpointId,
  pins: z.record(checkpointId, z.json()).optional(),
  live: z.array(checkpointId).max(1000).optional(),
  version: z.enum(['original', 'current']).optional(),
  approvals: z.enum(['reuse', 'ask']).optional(),
  input: z.json().optional(),
  backend: z.enum(['inprocess', 'temporal', 'inngest']).optional(),
  confirmSideEffects: z.boolean().optional(),
});

function replayRequest(input: z.infer<typeof replayInput>): ReplayRequest {
  return {
    from: input.from,
    ...(input.pins ? { pins: input.pins as Record<string, Json> } : {}),
    ...(input.live ? { live: input.live } : {}),
    ...(input.version ? { version: input.version } : {}),
    ...(input.approvals ? { approvals: input.approvals } : {}),
    ...(input.input !== undefined ? { input: input.input as Json } : {}),
    ...(input.backend ? { backend: input.backend } : {}),
    ...(input.confirmSideEffects !== undefined ? { confirmSideEffects: input.confirmSideEffects } : {}),
  };
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
        /** Start in-process and continue on `to` at `at` (`first-tool-call` or a step id). */
        handoff: z.object({ to: z.enum(HANDOFF_TARGETS), at: z.string().min(1).max(200) }).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const record = await ctx.services.store.flows.get(input.flowId, input.version);
      if (!record) {
        const which = input.version === undefined ? `'${input.flowId}'` : `'${input.flowId}' version ${input.version}`;
        throw new TRPCError({ code: 'NOT_FOUND', message: `flowId: unknown flow ${which}` });
      }
      return viaService(() =>
        ctx.services.runs.start({
          flow: record.doc,
          input: (input.input ?? {}) as Json,
          ...(input.fixtures ? { fixtures: input.fixtures as Fixtures } : {}),
          ...(input.backend ? { backend: input.backend } : {}),
          ...(input.handoff ? { handoff: input.handoff } : {}),
        }),
      );
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

  /**
   * The runs screen: filtered, full-text searched (input, output, error message) and paged by
   * the database, newest first, root runs only unless `rootOnly: false`; each with its duration,
   * tokens and cost. `nextCursor` pages on without repeating or skipping a run.
   */
  search: procedure
    .input(
      searchInput
        .refine((input) => input.since === undefined || input.until === undefined || input.since < input.until, {
          path: ['until'],
          message: 'must be after since',
        })
        .optional(),
    )
    .query(({ ctx, input = {} }) => viaService(() => searchRunSummaries(ctx.services.store, input))),

  /** A run's stored events after seq `after`, at most `limit`; `nextAfter` is where the next page starts (null: none now). */
  eventsPage: procedure
    .input(
      z.object({
        runId,
        after: z.number().int().nonnegative().optional(),
        limit: z.number().int().min(1).max(5000).optional(),
        /** Bytes of events in the page, within WEFT_MAX_RUN_PAGE_BYTES (run-pages.ts); at least one event. */
        maxBytes: z.number().int().min(1).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      await requireRun(ctx, input.runId);
      return readEventPage(
        ctx.services.store,
        input.runId,
        input.after ?? 0,
        input.limit ?? 1000,
        pageBudget(input.maxBytes),
      );
    }),

  /** The state after event `seq` (0: before the first): the engine's reducer over the events up to it. */
  stateAt: procedure.input(z.object({ runId, seq: z.number().int().nonnegative() })).query(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    const events = await ctx.services.store.readEvents(input.runId);
    const last = events.at(-1)?.seq ?? 0;
    if (input.seq > last)
      throw badRequest(
        `seq: run '${input.runId}' has events up to ${last}`,
        [{ path: 'seq', message: `must be at most ${last}, the run's last event` }],
        'seq',
      );
    return runState(events.filter((event) => event.seq <= input.seq));
  }),

  /** What the run's model turns cost: per turn, per llm step (its turns summed) and in total; free turns say why. */
  costs: procedure.input(z.object({ runId })).query(async ({ ctx, input }) => {
    const run = await requireRun(ctx, input.runId);
    const state = runState(await ctx.services.store.readEvents(run.id));
    return viaService(() => costsOfRun(state, run.fixtures));
  }),

  /**
   * The run and its state folded from the first page of its events (WEFT_MAX_RUN_PAGE_BYTES, or
   * `maxBytes` if less): when `nextAfter` is not null the state is partial, and the rest of the
   * events come from `eventsPage` after it (the CLI and the editor follow them: fullRunState).
   */
  get: procedure
    .input(z.object({ runId, maxBytes: z.number().int().min(1).optional() }))
    .query(async ({ ctx, input }) => {
      const run = await requireRun(ctx, input.runId);
      const page = await readEventPage(
        ctx.services.store,
        run.id,
        0,
        Number.POSITIVE_INFINITY,
        pageBudget(input.maxBytes),
      );
      const link = ctx.services.runs.link(run);
      return {
        run: { ...publicRun(run), flow: run.flow, ...(link ? { link } : {}) },
        state: runState(page.events),
        nextAfter: page.nextAfter,
      };
    }),

  cancel: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    const run = await viaService(() => ctx.services.runs.cancel(input.runId));
    return { runId: run.id, status: run.status };
  }),

  resume: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    await viaService(() => ctx.services.runs.resume(input.runId));
    return { runId: input.runId };
  }),

  /** A new run of the same pinned flow version, input and fixtures, on the engine the original ran on. */
  rerun: procedure.input(z.object({ runId })).mutation(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    return viaService(() => ctx.services.runs.rerun(input.runId));
  }),

  /**
   * A new run from a checkpoint of a past run: what completed before `from` is answered from
   * the past run's journal (not executed, not paid for), `pins` with the values given.
   */
  replay: procedure.input(replayInput).mutation(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    return viaService(() => ctx.services.runs.replay(input.runId, replayRequest(input)));
  }),

  /** What a replay would reuse, pin and run again, with the side effects that would fire again. */
  replayPreview: procedure.input(replayInput).query(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    return viaService(() => ctx.services.runs.previewReplay(input.runId, replayRequest(input)));
  }),

  /**
   * Two runs compared step by step (the engine's compareRuns over their events): same,
   * different or in one only, the first divergence, and the deltas.
   */
  compare: procedure.input(z.object({ a: runId, b: runId })).query(async ({ ctx, input }) => {
    await requireRun(ctx, input.a);
    await requireRun(ctx, input.b);
    const [a, b] = (
      await Promise.all([ctx.services.store.readEvents(input.a), ctx.services.store.readEvents(input.b)])
    ).map((events) => runState(events)) as [RunState, RunState];
    const [costA, costB] = await Promise.all([costOf(turnsOf(a)), costOf(turnsOf(b))]);
    return { ...compareRuns(a, b), cost: { a: costA, b: costB, deltaUsd: costB.usd - costA.usd } };
  }),

  /** The replays of a run, newest first. */
  replays: procedure.input(z.object({ runId })).query(async ({ ctx, input }) => {
    await requireRun(ctx, input.runId);
    return (await ctx.services.store.listRuns({ replayOf: input.runId, limit: 1000 })).map(publicRun);
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
