/**
 * The live compile check that feeds the problems panel, as the graph changes. A small flow is
 * compiled at once (a few ms); a large one is compiled in a worker (compile-worker.ts) once
 * edits pause, so typing into the inspector of a 2,000-step flow never waits for it, and the
 * first time once the page is idle. Only the answer to the latest request is applied.
 */
import { type FlowGraph, graphToFlow } from '@weft/engine';
import { useDeferredValue, useEffect, useRef } from 'react';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import type { Problem } from '../store/editor-store.ts';
import type { CompileAnswer } from './compile-worker.ts';

/** Nodes from which compiling moves off the page's thread. */
export const LARGE_GRAPH_NODES = 300;
/** How long edits must pause before a large flow is compiled again. */
const LARGE_GRAPH_PAUSE_MS = 250;
/** The latest the first check of a large flow starts when the page is never idle. */
const FIRST_CHECK_WITHIN_MS = 10_000;

const asProblems = (errors: CompileAnswer['errors']): Problem[] =>
  errors.map((issue) => ({ nodeId: issue.nodeId, message: issue.message, source: 'graph' }));

function compileHere(graph: FlowGraph): Problem[] {
  const result = graphToFlow(graph);
  return result.ok ? [] : asProblems(result.errors);
}

/** Compiles (and validates) the graph as it changes; problems are pinned to nodes. */
export function useLiveProblems(): void {
  const store = useEditorStoreApi();
  const graph = useDeferredValue(useEditor((state) => state.graph));
  const worker = useRef<Worker | null>(null);
  const latest = useRef(0);
  const started = useRef(false);

  useEffect(() => () => worker.current?.terminate(), []);

  useEffect(() => {
    const seq = ++latest.current;
    const large = graph.nodes.length >= LARGE_GRAPH_NODES && typeof Worker !== 'undefined';
    if (!large) {
      store.getState().setProblems(compileHere(graph));
      return;
    }
    const compile = () => {
      started.current = true;
      if (!worker.current) {
        worker.current = new Worker(new URL('./compile-worker.ts', import.meta.url), { type: 'module' });
        worker.current.onmessage = (event: MessageEvent<CompileAnswer>) => {
          if (event.data.seq !== latest.current) return;
          // Still no problems: no new (empty) list, so nothing redraws for it.
          if (event.data.errors.length === 0 && store.getState().problems.length === 0) return;
          store.getState().setProblems(asProblems(event.data.errors));
        };
        // A worker that cannot start (a strict CSP, say): compile here after all.
        worker.current.onerror = () => store.getState().setProblems(compileHere(store.getState().graph));
      }
      worker.current.postMessage({ seq, graph });
    };
    // The first check waits until the page is idle: starting a worker and compiling a large flow
    // while the canvas is first drawn takes cores (two, on a small machine) from that drawing.
    if (!started.current && typeof requestIdleCallback === 'function') {
      const idle = requestIdleCallback(compile, { timeout: FIRST_CHECK_WITHIN_MS });
      return () => cancelIdleCallback(idle);
    }
    const timer = setTimeout(compile, LARGE_GRAPH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [graph, store]);
}
