/**
 * The live compile check that feeds the problems panel, as the graph changes. A small flow is
 * compiled at once (a few ms); a large one is compiled in a worker (compile-worker.ts) once
 * edits pause, so typing into the inspector of a 2,000-step flow never waits for it. The first
 * check of either waits until the page is idle, after the canvas is first drawn. Only the answer
 * to the latest request is applied.
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
/** The same for a small flow: its problems are shown within a second of opening it. */
const SMALL_FIRST_CHECK_WITHIN_MS = 1_000;

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
    const compile = () => {
      started.current = true;
      if (!large) {
        store.getState().setProblems(compileHere(graph));
        return;
      }
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
    // The first check, at any size, waits until the page is idle: it validates the whole flow
    // (schemas, expressions; tens of ms even for 100 steps), and run in the first render's effects
    // it holds back the first frame the canvas is painted in. A large flow's would also start a
    // worker and take a core (of two, on a small machine) from that drawing.
    if (!started.current && typeof requestIdleCallback === 'function') {
      const idle = requestIdleCallback(compile, {
        timeout: large ? FIRST_CHECK_WITHIN_MS : SMALL_FIRST_CHECK_WITHIN_MS,
      });
      return () => cancelIdleCallback(idle);
    }
    if (!large) {
      compile();
      return;
    }
    const timer = setTimeout(compile, LARGE_GRAPH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [graph, store]);
}
