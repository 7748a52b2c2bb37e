/** Tools the host application registered (TypeScript tools by name); none by default. */
import { z } from 'zod';
import { procedure, router } from '../trpc.ts';

export const toolsRouter = router({
  list: procedure.input(z.object({}).optional()).query(({ ctx }) => {
    return Object.entries(ctx.services.tools).map(([name, tool]) => ({
      name,
      description: tool.description,
      parameters: tool.parameters,
    }));
  }),
});
