/** The backends this server offers, for the run and replay forms. */
import { useEffect, useState } from 'react';
import { trpc } from '../trpc.ts';

export type Backend = Awaited<ReturnType<typeof trpc.backends.list.query>>[number];
export type BackendId = Backend['id'];

/** Before the server answers: in-process only (always there). */
const DEFAULT_BACKENDS: Backend[] = [{ id: 'inprocess', label: 'In-process', available: true, setting: null }];

/** Those the server has not configured are listed, disabled, with the setting they need. */
export function useBackends(): Backend[] {
  const [backends, setBackends] = useState<Backend[]>(DEFAULT_BACKENDS);
  useEffect(() => {
    let live = true;
    trpc.backends.list
      .query()
      .then((list) => live && setBackends(list))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return backends;
}

/** The backend `<option>`s: unconfigured ones disabled, titled with the setting they need. */
export function BackendOptions({ backends }: { backends: Backend[] }) {
  return backends.map((option) => (
    <option
      key={option.id}
      value={option.id}
      disabled={!option.available}
      title={option.setting && !option.available ? `set ${option.setting} on the server` : undefined}
    >
      {option.label}
      {option.available ? '' : ' (not configured)'}
    </option>
  ));
}
