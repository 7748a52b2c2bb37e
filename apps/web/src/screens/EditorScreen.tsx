/**
 * Loads a flow, draws it as a graph, and lays out the editor around the canvas. With a run in
 * the route (`#/flows/<id>/runs/<runId>`) it loads the flow version that run ran and follows the
 * run's events: live while it runs (wherever it was started), replayed when it has ended.
 */
import { type Flow, type FlowGraph, flowToGraph } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useState } from 'react';
import { ComparePanel } from '../compare/ComparePanel.tsx';
import { useRoute } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import type { Theme } from '../components/theme.ts';
import { Canvas } from '../editor/Canvas.tsx';
import { Inspector } from '../editor/Inspector.tsx';
import { Palette } from '../editor/Palette.tsx';
import { ProblemsPanel } from '../editor/ProblemsPanel.tsx';
import { RunPanel } from '../editor/RunPanel.tsx';
import { Toolbar } from '../editor/Toolbar.tsx';
import { useLiveProblems } from '../editor/use-flow-actions.ts';
import { useFollowRun } from '../runs/follow-run.ts';
import { RunsList } from '../runs/RunsList.tsx';
import { EditorStoreProvider } from '../store/EditorStoreProvider.tsx';
import { TestsPanel } from '../tests/TestsPanel.tsx';
import { messageOf, trpc } from '../trpc.ts';

type Loaded = { graph: FlowGraph; version: number } | { error: string };

export function EditorScreen({ flowId, theme }: { flowId: string; theme: Theme }) {
  const route = useRoute();
  const runId = route.screen === 'editor' ? (route.runId ?? null) : null;
  // A new run in the route is another flow version: a fresh store.
  return <EditorForRun key={runId ?? ''} flowId={flowId} runId={runId} theme={theme} />;
}

function EditorForRun({ flowId, runId, theme }: { flowId: string; runId: string | null; theme: Theme }) {
  const toast = useToast();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    let live = true;
    (async () => {
      if (!runId) {
        const record = await trpc.flows.get.query({ id: flowId });
        return { doc: record.doc as unknown, version: record.version };
      }
      // The run keeps the flow document it ran: draw exactly that.
      const { run } = await trpc.runs.get.query({ runId });
      if (run.flowId !== flowId) throw new Error(`run ${runId} is a run of '${run.flowId}'`);
      return { doc: run.flow as unknown, version: run.flowVersion };
    })()
      .then((record) => live && setLoaded({ graph: flowToGraph(record.doc as Flow), version: record.version }))
      .catch((error: unknown) => {
        if (!live) return;
        setLoaded({ error: messageOf(error) });
        toast(`Could not open ${flowId}: ${messageOf(error)}`);
      });
    return () => {
      live = false;
    };
  }, [flowId, runId, toast]);

  if (!loaded) return <main className="loading muted">Loading {flowId}…</main>;
  if ('error' in loaded) {
    return (
      <main className="empty-state">
        <h2>Could not open “{flowId}”</h2>
        <p>{loaded.error}</p>
        <a className="button" href="#/">
          Back to all flows
        </a>
      </main>
    );
  }
  return (
    <EditorStoreProvider init={{ flowId, version: loaded.version, graph: loaded.graph }}>
      <ReactFlowProvider>
        <EditorLayout theme={theme} runId={runId} />
      </ReactFlowProvider>
    </EditorStoreProvider>
  );
}

function EditorLayout({ theme, runId }: { theme: Theme; runId: string | null }) {
  useLiveProblems();
  const follow = useFollowRun();
  useEffect(() => {
    if (runId) follow(runId);
  }, [runId, follow]);
  return (
    <main className="editor">
      <Toolbar />
      <div className="editor-body">
        <Palette />
        <Canvas colorMode={theme} />
        <div className="side">
          <Inspector />
          <ProblemsPanel />
          <RunPanel />
          <ComparePanel />
          <RunsList openRunId={runId} />
          <TestsPanel />
        </div>
      </div>
    </main>
  );
}
