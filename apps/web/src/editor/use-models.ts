import { useEffect, useState } from 'react';
import { trpc } from '../trpc.ts';

export interface ModelProvider {
  id: string;
  label: string;
  configured: boolean;
}

let cache: Promise<ModelProvider[]> | null = null;

/** The server's model providers (fetched once per page). */
export function useModels(): ModelProvider[] {
  const [models, setModels] = useState<ModelProvider[]>([]);
  useEffect(() => {
    cache ??= trpc.models.list.query().catch(() => []);
    let live = true;
    void cache.then((list) => live && setModels(list));
    return () => {
      live = false;
    };
  }, []);
  return models;
}
