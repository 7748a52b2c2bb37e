/**
 * The stored record of the run on the canvas (`runs.get`: its lineage, engine link, input) and
 * the runs that are replays of it (`runs.replays`, kept fresh by `runs.statusChanges`).
 */
import { useEffect, useState } from 'react';
import { trpc } from '../trpc.ts';

export type RunRecord = Awaited<ReturnType<typeof trpc.runs.get.query>>['run'];
export type RunSummary = Awaited<ReturnType<typeof trpc.runs.list.query>>[number];

/** `runs.get` for `runId`, fetched again when `refresh` changes (e.g. the run's status). */
export function useRunRecord(runId: string | undefined, refresh?: unknown): RunRecord | undefined {
  const [record, setRecord] = useState<RunRecord>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` only says when to fetch again
  useEffect(() => {
    if (!runId) return;
    let live = true;
    trpc.runs.get
      .query({ runId })
      .then(({ run }) => live && setRecord(run))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [runId, refresh]);
  return record && record.id === runId ? record : undefined;
}

/** The replays of `runId`, newest first; reloaded when a run of the flow changes status. */
export function useReplays(runId: string | undefined, flowId: string): RunSummary[] {
  const [replays, setReplays] = useState<{ of: string; runs: RunSummary[] }>();
  useEffect(() => {
    if (!runId) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      trpc.runs.replays
        .query({ runId })
        .then((runs) => live && setReplays({ of: runId, runs }))
        .catch(() => undefined);
    void load();
    const subscription = trpc.runs.statusChanges.subscribe(
      { flowId },
      {
        onData: () => {
          clearTimeout(timer);
          timer = setTimeout(load, 150);
        },
      },
    );
    return () => {
      live = false;
      clearTimeout(timer);
      subscription.unsubscribe();
    };
  }, [runId, flowId]);
  return replays && replays.of === runId ? replays.runs : [];
}
