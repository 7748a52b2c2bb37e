/** Model providers this server can use: configured or not, with a label. Never a key or a URL. */
import { listModelProviders } from '@weft/adapters/executors';
import { z } from 'zod';
import { procedure, router } from '../trpc.ts';

export const modelsRouter = router({
  list: procedure
    .input(z.object({}).optional())
    .query(({ ctx }) =>
      listModelProviders(ctx.services.env).map(({ id, label, configured }) => ({ id, label, configured })),
    ),
});
