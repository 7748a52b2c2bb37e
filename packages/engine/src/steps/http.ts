/** `http`: one HTTP request, checkpointed. Private addresses are refused by the host unless allowed. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import type { HttpCallInput } from '../interpreter/host.ts';
import { baseStepShape, templateSchema, valueSchema } from '../ir/common.ts';

export const httpStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('http'),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).optional(),
  url: templateSchema,
  headers: z.record(z.string(), templateSchema).optional(),
  body: valueSchema.optional(),
});
export type HttpStep = z.infer<typeof httpStepSchema>;

export const httpHandler: StepHandler<HttpStep, HttpCallInput> = {
  describeInput(step, ctx) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(step.headers ?? {})) headers[name] = String(ctx.resolve(value));
    const request: HttpCallInput = {
      method: step.method ?? 'GET',
      url: String(ctx.resolve(step.url)),
      headers,
    };
    if (step.body !== undefined) request.body = ctx.resolve(step.body);
    return request;
  },
  async execute(_step, ctx, input) {
    return ctx.host.run(ctx.path, { kind: 'http', input }, ctx.policy);
  },
};
