/**
 * The editor's side column: the inspector, problems, the run panel, compare, the flow's runs and
 * its tests. Its own chunk, loaded once the canvas has been drawn (EditorScreen): none of it is
 * needed to see a flow, and it is a good part of the editor's code.
 */
import { ComparePanel } from '../compare/ComparePanel.tsx';
import { RunsList } from '../runs/RunsList.tsx';
import { TestsPanel } from '../tests/TestsPanel.tsx';
import { Inspector } from './Inspector.tsx';
import { ProblemsPanel } from './ProblemsPanel.tsx';
import { RunPanel } from './RunPanel.tsx';

export function SidePanels({ runId }: { runId: string | null }) {
  return (
    <>
      <Inspector runView={runId !== null} />
      <ProblemsPanel />
      <RunPanel />
      <ComparePanel />
      <RunsList openRunId={runId} />
      <TestsPanel />
    </>
  );
}
