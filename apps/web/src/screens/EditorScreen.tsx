/** Loads a flow, draws it as a graph, and lays out the editor around the canvas. */
import { type Flow, type FlowGraph, flowToGraph } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useState } from 'react';
import { useToast } from '../components/Toasts.tsx';
import type { Theme } from '../components/theme.ts';
import { Canvas } from '../editor/Canvas.tsx';
import { Inspector } from '../editor/Inspector.tsx';
import { Palette } from '../editor/Palette.tsx';
import { ProblemsPanel } from '../editor/ProblemsPanel.tsx';
import { RunPanel } from '../editor/RunPanel.tsx';
import { Toolbar } from '../editor/Toolbar.tsx';
import { useLiveProblems } from '../editor/use-flow-actions.ts';
import { EditorStoreProvider } from '../store/EditorStoreProvider.tsx';
import { messageOf, trpc } from '../trpc.ts';

type Loaded = { graph: FlowGraph; version: number } | { error: string };

export function EditorScreen({ flowId, theme }: { flowId: string; theme: Theme }) {
  const toast = useToast();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    let live = true;
    trpc.flows.get
      .query({ id: flowId })
      .then(
        (record) => live && setLoaded({ graph: flowToGraph(record.doc as unknown as Flow), version: record.version }),
      )
      .catch((error: unknown) => {
        if (!live) return;
        setLoaded({ error: messageOf(error) });
        toast(`Could not open ${flowId}: ${messageOf(error)}`);
      });
    return () => {
      live = false;
    };
  }, [flowId, toast]);

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
        <EditorLayout theme={theme} />
      </ReactFlowProvider>
    </EditorStoreProvider>
  );
}

function EditorLayout({ theme }: { theme: Theme }) {
  useLiveProblems();
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
        </div>
      </div>
    </main>
  );
}
