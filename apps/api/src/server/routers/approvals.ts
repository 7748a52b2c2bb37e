/**
 * Approvals: pending ones across runs, and decisions through the run service. Of concurrent
 * decisions exactly one is accepted (the store decides); the others get CONFLICT naming who decided. The decision is
 * recorded at once and the run resumes in the background (the resumed run records
 * `approval.resolved` with who decided), so a long run does not hold the request open.
 */
import { isFinalStatus, isJsonObject } from '@weft/engine';
import { z } from 'zod';
import { procedure, router } from '../trpc.ts';
import { requireRun, viaService } from './runs.ts';

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
      await requireRun(ctx, input.runId);
      const by = ctx.user ?? 'api';
      await viaService(() =>
        ctx.services.runs.decide(input.runId, input.stepId, {
          approved: input.approved,
          by,
          comment: input.comment ?? null,
        }),
      );
      return { accepted: true, runId: input.runId, stepId: input.stepId, approved: input.approved, by };
    }),
});
