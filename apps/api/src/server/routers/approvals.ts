/**
 * Approvals: pending ones across runs, and decisions. Of concurrent decisions exactly one is
 * accepted (the store decides); the others get CONFLICT naming who decided. The decision is
 * recorded at once and the run resumes in the background (the resumed run records
 * `approval.resolved` with who decided), so a long run does not hold the request open.
 */
import { TRPCError } from '@trpc/server';
import type { ExternalBackendName } from '@weft/adapters/backends';
import { isFinalStatus, isJsonObject } from '@weft/engine';
import { z } from 'zod';
import { procedure, router } from '../trpc.ts';
import { executeInBackground, requireRun } from './runs.ts';

export const approvalsRouter = router({
  list: procedure.input(z.object({ runId: z.string().min(1).optional() }).optional()).query(async ({ ctx, input }) => {
    const { store } = ctx.services;
    const pending = await store.listApprovals({ status: 'pending', ...(input?.runId ? { runId: input.runId } : {}) });
    const out = [];
    for (const approval of pending) {
      const run = await store.getRun(approval.runId);
      if (!run || isFinalStatus(run.status)) continue;
      const name = isJsonObject(run.flow) && typeof run.flow.name === 'string' ? run.flow.name : run.flowId;
      out.push({
        runId: approval.runId,
        stepId: approval.stepId,
        prompt: approval.prompt,
        requestedAt: approval.requestedAt,
        deadline: approval.deadline,
        run: { id: run.id, status: run.status, createdAt: run.createdAt },
        flow: { id: run.flowId, version: run.flowVersion, name },
      });
    }
    return out;
  }),

  decide: procedure
    .input(
      z.object({
        runId: z.string().min(1),
        stepId: z.string().min(1),
        approved: z.boolean(),
        comment: z.string().max(10_000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { store } = ctx.services;
      const run = await requireRun(ctx, input.runId);
      const approval = await store.getApproval(run.id, input.stepId);
      if (!approval)
        throw new TRPCError({
          code: 'NOT_FOUND',
          message: `stepId: run '${run.id}' has no approval at step '${input.stepId}'`,
        });
      if (approval.status !== 'pending')
        throw new TRPCError({
          code: 'CONFLICT',
          message: `the approval at '${input.stepId}' was already ${approval.status}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`,
        });
      if (isFinalStatus(run.status))
        throw new TRPCError({ code: 'CONFLICT', message: `run '${run.id}' is ${run.status}; it takes no decisions` });
      const by = ctx.user ?? 'api';
      const accepted = await store.resolveApproval(run.id, input.stepId, {
        status: input.approved ? 'approved' : 'rejected',
        by,
        comment: input.comment ?? null,
        at: Date.now(),
      });
      if (!accepted) {
        const winner = await store.getApproval(run.id, input.stepId);
        throw new TRPCError({
          code: 'CONFLICT',
          message: `the approval at '${input.stepId}' was already ${winner?.status ?? 'decided'} by ${winner?.decidedBy ?? 'someone else'}`,
        });
      }
      const external = ctx.services.backends.get(run.backend as ExternalBackendName);
      if (external) {
        await external.decide(run.id, {
          stepId: input.stepId,
          approved: input.approved,
          by,
          comment: input.comment ?? null,
        });
        return { accepted: true, runId: run.id, stepId: input.stepId, approved: input.approved, by };
      }
      // As runner.approve does after an accepted decision; a busy run looks again when it parks.
      executeInBackground(ctx, run.id);
      return { accepted: true, runId: run.id, stepId: input.stepId, approved: input.approved, by };
    }),
});
