/** Save (graph → IR → flows.save); the live compile check is in live-problems.ts. */
import { graphToFlow } from '@weft/engine';
import { useCallback } from 'react';
import { useToast } from '../components/Toasts.tsx';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import type { Problem } from '../store/editor-store.ts';
import { flowErrorsOf, messageOf, trpc } from '../trpc.ts';

export { useLiveProblems } from './live-problems.ts';

/** Returns `save()`: resolves true once the server has the new version. */
export function useSave(): () => Promise<boolean> {
  const store = useEditorStoreApi();
  const toast = useToast();
  return useCallback(async () => {
    const { graph, flowId } = store.getState();
    const result = graphToFlow(graph);
    if (!result.ok) {
      store
        .getState()
        .setProblems(result.errors.map((issue) => ({ nodeId: issue.nodeId, message: issue.message, source: 'graph' })));
      toast(`Fix ${result.errors.length} problem${result.errors.length === 1 ? '' : 's'} before saving`);
      return false;
    }
    try {
      const saved = await trpc.flows.save.mutate({
        id: flowId,
        doc: result.flow as unknown as Record<string, unknown>,
      });
      store.getState().markSaved(saved.version);
      toast(`Saved version ${saved.version}`, 'success');
      return true;
    } catch (error) {
      const flowErrors = flowErrorsOf(error);
      if (flowErrors.length > 0) {
        const problems: Problem[] = flowErrors.map((issue) => ({
          nodeId: issue.stepId,
          message: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
          source: 'server',
        }));
        store.getState().setProblems(problems);
      }
      toast(`Could not save: ${messageOf(error)}`);
      return false;
    }
  }, [store, toast]);
}
