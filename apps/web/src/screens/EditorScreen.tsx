/**
 * Loads a flow, draws it as a graph, and lays out the editor around the canvas. With a run —
 * the run view, `#/runs/<runId>?at=<seq>&step=<stepId>` (or the older
 * `#/flows/<id>/runs/<runId>`) — it loads the flow version that run ran (runs are pinned) and
 * opens the run: its stored events, then live ones while it runs, with the scrubber and the
 * timeline under the canvas, restoring the scrubbed event and the selected step of the
 * permalink and keeping the address on them as the user moves.
 */
import type { Flow, FlowGraph } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useAfterFirstPaint } from '../components/after-first-paint.ts';
import { useRoute } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import type { Theme } from '../components/theme.ts';
import { Canvas } from '../editor/Canvas.tsx';
import { takeArrivedFlow, takePrefetchedFlow } from '../editor/flow-prefetch.ts';
import { LeaveGuard } from '../editor/LeaveGuard.tsx';
import { Palette } from '../editor/Palette.tsx';
import { Toolbar } from '../editor/Toolbar.tsx';
import { useLiveProblems } from '../editor/use-flow-actions.ts';
import { drawFlow } from '../graph/layout.ts';
import { useOpenRun } from '../run-view/load-run.ts';
import { usePermalinkSync } from '../run-view/permalink.ts';
import { EditorStoreProvider } from '../store/EditorStoreProvider.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { messageOf, trpc } from '../trpc.ts';

// The run view's parts load with the first run shown, not with every editor.
const RunDock = lazy(() => import('../run-view/RunDock.tsx').then((module) => ({ default: module.RunDock })));
// The side panels: drawn after the canvas (useAfterFirstPaint), and their code loaded then too.
const SidePanels = lazy(() => import('../editor/SidePanels.tsx').then((module) => ({ default: module.SidePanels })));
const RunHeader = lazy(() => import('../run-view/RunHeader.tsx').then((module) => ({ default: module.RunHeader })));

type Loaded = { flowId: string; graph: FlowGraph; version: number } | { error: string };

export interface EditorScreenProps {
  /** The flow; in the run view it may be left out (the run names it). */
  flowId?: string | undefined;
  runId?: string | undefined;
  /** The scrubbed event's seq and the selected run step (a permalink). */
  at?: number | undefined;
  step?: string | undefined;
  theme: Theme;
}

export function EditorScreen({ flowId, runId: runProp, at, step, theme }: EditorScreenProps) {
  const route = useRoute();
  // The older route names the run in the path of the flow.
  const runId = runProp ?? (route.screen === 'editor' ? route.runId : undefined) ?? null;
  // A new run in the route is another flow version: a fresh store.
  return <EditorForRun key={runId ?? ''} flowId={flowId ?? null} runId={runId} at={at} step={step} theme={theme} />;
}

interface ForRun {
  flowId: string | null;
  runId: string | null;
  at: number | undefined;
  step: string | undefined;
  theme: Theme;
}

/** The editor's flow drawn, if it was prefetched and has arrived; else null (it is then loaded). */
function arrivedFlow(flowId: string | null, runId: string | null): (Loaded & { flowId: string }) | null {
  const record = flowId && !runId ? takeArrivedFlow(flowId) : null;
  if (!record || !flowId) return null;
  try {
    return { flowId, graph: drawFlow(record.doc as Flow), version: record.version };
  } catch {
    return null; // loaded again by the effect, which shows what is wrong with it
  }
}

function EditorForRun({ flowId, runId, at, step, theme }: ForRun) {
  const toast = useToast();
  // A prefetched flow that has arrived is drawn in the first render, with no "Loading…" frame.
  const [arrived] = useState(() => arrivedFlow(flowId, runId));
  const [loaded, setLoaded] = useState<Loaded | null>(arrived);
  const name = flowId ?? runId ?? '';
  useEffect(() => {
    // Drawn already (only ever an editor address's flow, never a run's).
    if (arrived?.flowId === flowId) return;
    let live = true;
    (async () => {
      if (!runId) {
        if (!flowId) throw new Error('no flow named');
        const record = await (takePrefetchedFlow(flowId) ?? trpc.flows.get.query({ id: flowId }));
        return { flowId, doc: record.doc as unknown, version: record.version };
      }
      // The run keeps the flow document it ran: draw exactly that.
      const { run } = await trpc.runs.get.query({ runId });
      if (flowId && run.flowId !== flowId) throw new Error(`run ${runId} is a run of '${run.flowId}'`);
      return { flowId: run.flowId, doc: run.flow as unknown, version: run.flowVersion };
    })()
      .then(
        (record) =>
          live && setLoaded({ flowId: record.flowId, graph: drawFlow(record.doc as Flow), version: record.version }),
      )
      .catch((error: unknown) => {
        if (!live) return;
        setLoaded({ error: messageOf(error) });
        toast(`Could not open ${name}: ${messageOf(error)}`);
      });
    return () => {
      live = false;
    };
  }, [flowId, runId, name, toast, arrived]);

  if (!loaded) return <main className="loading muted">Loading {name}…</main>;
  if ('error' in loaded) {
    return (
      <main className="empty-state">
        <h2>Could not open “{name}”</h2>
        <p>{loaded.error}</p>
        <a className="button" href={runId ? '#/runs' : '#/'}>
          {runId ? 'Back to all runs' : 'Back to all flows'}
        </a>
      </main>
    );
  }
  return (
    <EditorStoreProvider init={{ flowId: loaded.flowId, version: loaded.version, graph: loaded.graph }}>
      <ReactFlowProvider>
        <EditorLayout theme={theme} runId={runId} at={at} step={step} />
      </ReactFlowProvider>
    </EditorStoreProvider>
  );
}

function EditorLayout({ theme, runId, at, step }: Omit<ForRun, 'flowId'>) {
  useLiveProblems();
  // The side panels come a frame after the canvas: a flow is drawn before its panels are built.
  const sides = useAfterFirstPaint();
  const store = useEditorStoreApi();
  const open = useOpenRun();
  const hasRun = useEditor((state) => state.run !== null);
  // `at` and `step` matter when the run opens; later ones come through the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once per run
  useEffect(() => {
    if (runId) open(runId, { at, step });
  }, [runId, open]);
  // Another permalink of the same run (a link in the page): move there without reloading.
  useEffect(() => {
    const state = store.getState();
    if (!runId || state.run?.runId !== runId) return;
    if (step !== undefined && step !== state.selectedStepId) state.selectRunStep(step);
    if (at !== undefined) state.scrubToSeq(at);
  }, [store, runId, at, step]);
  usePermalinkSync(store, runId !== null);
  return (
    <main className="editor">
      <LeaveGuard />
      <Toolbar />
      {runId ? (
        <Suspense fallback={null}>
          <RunHeader runId={runId} />
        </Suspense>
      ) : null}
      <div className="editor-body">
        <Palette />
        <div className="canvas-column">
          <Canvas colorMode={theme} />
          {hasRun ? (
            <Suspense fallback={null}>
              <RunDock runView={runId !== null} />
            </Suspense>
          ) : null}
        </div>
        <div className="side">
          {sides ? (
            <Suspense fallback={null}>
              <SidePanels runId={runId} />
            </Suspense>
          ) : null}
        </div>
      </div>
    </main>
  );
}
