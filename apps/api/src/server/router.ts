/** The API: one router per feature. `AppRouter` is the only thing the web app imports. */
import { approvalsRouter } from './routers/approvals.ts';
import { backendsRouter } from './routers/backends.ts';
import { examplesRouter } from './routers/examples.ts';
import { flowsRouter } from './routers/flows.ts';
import { modelsRouter } from './routers/models.ts';
import { runsRouter } from './routers/runs.ts';
import { testsRouter } from './routers/tests.ts';
import { toolsRouter } from './routers/tools.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  flows: flowsRouter,
  runs: runsRouter,
  approvals: approvalsRouter,
  models: modelsRouter,
  tools: toolsRouter,
  backends: backendsRouter,
  tests: testsRouter,
  examples: examplesRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
