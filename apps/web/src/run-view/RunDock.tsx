/**
 * The run view's dock under the canvas: the scrubber over the run's events and the timeline.
 * In the run view (`#/runs/<id>`) the timeline is open and the keys work anywhere but in text
 * fields; under a run started in the editor the timeline starts folded (the canvas keeps its
 * room) and the keys work only while focus is in the dock, so the editor's keys stay the
 * editor's. The canvas shrinks when the dock opens: the flow is fitted again into what is left,
 * so no node ends up out of view (the canvas does not draw nodes out of view).
 */
import { useNodesInitialized, useReactFlow } from '@xyflow/react';
import { useEffect, useRef, useState } from 'react';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import { Scrubber } from './Scrubber.tsx';
import { Timeline } from './Timeline.tsx';
import { useScrubKeys } from './use-scrub-keys.ts';
import './run-view.css';

export function RunDock({ runView }: { runView: boolean }) {
  const store = useEditorStoreApi();
  const ref = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(runView);
  const { fitView } = useReactFlow();
  // Measured nodes are what a fit needs; until then xyflow's own first fit is still to come.
  const measured = useNodesInitialized();
  useScrubKeys(store, runView ? 'window' : ref);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refit when the dock's height changes
  useEffect(() => {
    if (!measured) return;
    const frame = requestAnimationFrame(() => void fitView({ maxZoom: 1 }));
    return () => cancelAnimationFrame(frame);
  }, [open, measured, fitView]);
  return (
    <section ref={ref} className={`run-dock${open ? '' : ' closed'}`} aria-label="Run timeline">
      <div className="run-dock-bar">
        <button
          type="button"
          className="button ghost small"
          aria-expanded={open}
          aria-label={open ? 'Hide the timeline' : 'Show the timeline'}
          onClick={() => setOpen(!open)}
        >
          {open ? '▾' : '▸'} Timeline
        </button>
        <Scrubber />
      </div>
      {open ? <Timeline /> : null}
    </section>
  );
}
