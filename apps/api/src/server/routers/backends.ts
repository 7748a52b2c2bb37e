/**
 * The engines a run can go to on this server: in-process always, Temporal and Inngest when
 * configured. Names the setting a missing one needs; never an address or a key.
 */
import { z } from 'zod';
import { BACKEND_SETTING } from '../../backends.ts';
import { procedure, router } from '../trpc.ts';

const KNOWN = [
  { id: 'inprocess', label: 'In-process', setting: null },
  { id: 'temporal', label: 'Temporal', setting: BACKEND_SETTING.temporal },
  { id: 'inngest', label: 'Inngest', setting: BACKEND_SETTING.inngest },
] as const;

/** The server setting that enables a backend, for errors naming what is missing. */
export function backendSetting(id: string): string {
  return KNOWN.find((known) => known.id === id)?.setting ?? 'nothing';
}

export const backendsRouter = router({
  list: procedure.input(z.object({}).optional()).query(({ ctx }) =>
    KNOWN.map(({ id, label, setting }) => ({
      id,
      label,
      available: ctx.services.runs.has(id),
      setting,
    })),
  ),
});
