/** What an expression at a node (or at the flow level: null) can read, for completions. */
import { useMemo } from 'react';
import { useEditor } from '../../store/editor-hooks.ts';
import { type Suggestion, scopeSuggestions } from './expression.ts';

export function useScopeSuggestions(nodeId: string | null): readonly Suggestion[] {
  const meta = useEditor((state) => state.graph.meta);
  const nodes = useEditor((state) => state.graph.nodes);
  const edges = useEditor((state) => state.graph.edges);
  return useMemo(() => scopeSuggestions({ meta, nodes, edges }, nodeId), [meta, nodes, edges, nodeId]);
}
