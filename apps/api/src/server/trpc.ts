/**
 * The one `initTRPC` of the server. Every procedure goes through `procedure`, which requires the
 * bearer token whenever one is configured; inputs are zod schemas, and a zod failure comes back
 * as BAD_REQUEST with the issues (each naming its field) in `error.data.issues`.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { ApiContext } from './context.ts';
import { refuseProtoKeys } from './refuse-proto-keys.ts';

const t = initTRPC.context<ApiContext>().create({
  // Stack traces (server paths) stay out of responses unless WEFT_DEBUG asks for them.
  isDev: Boolean(process.env.WEFT_DEBUG),
  sse: {
    // Pings keep proxies from closing an idle stream; a client that hears nothing for a second
    // reconnects at once (an EventSource at its defaults would wait 3 s).
    ping: { enabled: true, intervalMs: 500 },
    client: { reconnectAfterInactivityMs: 1_000 },
  },
  errorFormatter({ shape, error }) {
    const issues =
      error.cause instanceof ZodError
        ? error.cause.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }))
        : undefined;
    // An invalid flow (routers/flows.ts FlowValidationError): the engine's problems, each
    // { stepId, path, message }. Found by property so this file need not import the routers.
    const flowErrors =
      error.cause instanceof Error && 'flowErrors' in error.cause
        ? (error.cause.flowErrors as { stepId: string | null; path: string; message: string }[])
        : undefined;
    return { ...shape, data: { ...shape.data, ...(issues ? { issues } : {}), ...(flowErrors ? { flowErrors } : {}) } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure: authenticated when the server has a token. */
export const procedure = t.procedure.use(async ({ ctx, next, getRawInput }) => {
  if (ctx.auth.required && !ctx.auth.valid) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: ctx.auth.provided
        ? 'the bearer token is wrong'
        : 'a bearer token is required (Authorization: Bearer <WEFT_TOKEN>)',
    });
  }
  // Checked before any input schema: a schema would drop the key silently (refuse-proto-keys.ts).
  await refuseProtoKeys(getRawInput);
  return next();
});
