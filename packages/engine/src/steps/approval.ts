/**
 * `approval`: parks the run until a person decides (or the timeout passes). The host keeps the
 * request durable, so the decision survives restarts of whatever is running the flow.
 */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, durationSchema, templateSchema } from '../ir/common.ts';
import { durationMs } from '../ir/duration.ts';
import type { StepManifest } from './manifest.ts';

export const approvalStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('approval'),
  prompt: templateSchema,
  /** How long to wait for a decision (here `timeout` is the wait, not a call timeout). */
  timeout: durationSchema.optional(),
  onTimeout: z.enum(['reject', 'approve', 'fail']).optional(),
});
export type ApprovalStep = z.infer<typeof approvalStepSchema>;

const approvalHandler: StepHandler<ApprovalStep, { prompt: string }> = {
  describeInput(step, ctx) {
    return { prompt: String(ctx.resolve(step.prompt)) };
  },
  async execute(step, ctx, { prompt }) {
    const timeoutMs = step.timeout === undefined ? undefined : durationMs(step.timeout);
    ctx.host.emit({
      type: 'approval.requested',
      stepId: ctx.path,
      prompt,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    const outcome = await ctx.host.waitForApproval(
      ctx.path,
      timeoutMs === undefined ? { prompt } : { prompt, timeoutMs },
    );
    let result: { approved: boolean; by: string | null; comment: string | null; at: string };
    if (outcome.kind === 'decided') {
      result = { approved: outcome.approved, by: outcome.by, comment: outcome.comment, at: outcome.at };
    } else {
      const policy = step.onTimeout ?? 'reject';
      if (policy === 'fail') throw new NonRetryableError(`approval timed out after ${step.timeout}`);
      result = { approved: policy === 'approve', by: 'timeout', comment: null, at: outcome.at };
    }
    ctx.host.emit({
      type: 'approval.resolved',
      stepId: ctx.path,
      approved: result.approved,
      by: result.by,
      comment: result.comment,
      timedOut: outcome.kind === 'timed-out',
    });
    return result;
  },
};

/** Everything `approval` means, for the registry, the validator, code-first, codegen and the editor. */
export const approvalStep: StepManifest<ApprovalStep> = {
  type: 'approval',
  schema: approvalStepSchema,
  handler: approvalHandler,
  fields: {
    prompt: { kind: 'template', multiline: true },
    // The wait for a decision, not a call timeout: the editor shows it with the prompt.
    timeout: { kind: 'duration' },
    onTimeout: { kind: 'literal' },
  },
  editor: {
    label: 'Approval',
    icon: 'check',
    description: 'Pause until a person approves or rejects.',
    shape: 'node',
    defaults: { prompt: 'Continue?' },
  },
};
