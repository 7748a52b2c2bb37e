/** The flow's latest saved version (null until the server answers, or when it cannot). */
import { useEffect, useState } from 'react';
import { trpc } from '../trpc.ts';

export function useLatestVersion(flowId: string): number | null {
  const [version, setVersion] = useState<number | null>(null);
  useEffect(() => {
    let live = true;
    trpc.flows.get
      .query({ id: flowId })
      .then((record) => live && setVersion(record.version))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [flowId]);
  return version;
}
