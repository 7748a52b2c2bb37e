/**
 * Every step type: drag one onto the canvas (onto an edge to insert it there), or click to add it
 * after the selected node — or on the selected edge, which fills an empty branch, arm or body.
 */
import type { DragEvent } from 'react';
import { STEP_CATALOG } from '../graph/step-catalog.ts';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import { STEP_DRAG_TYPE } from './Canvas.tsx';

export function Palette() {
  const store = useEditorStoreApi();
  return (
    <aside className="palette" aria-label="Step palette">
      <h2 className="panel-title">Steps</h2>
      <p className="muted small">
        Drag onto the canvas or an edge, or click to add after the selected node (or on the selected edge).
      </p>
      <ul>
        {STEP_CATALOG.map((info) => (
          <li key={info.type}>
            <button
              type="button"
              className="palette-item"
              draggable
              aria-label={`Add ${info.label} step`}
              title={info.description}
              onDragStart={(event: DragEvent) => {
                event.dataTransfer.setData(STEP_DRAG_TYPE, info.type);
                event.dataTransfer.effectAllowed = 'copy';
              }}
              onClick={() => store.getState().appendStep(info.type)}
            >
              <span className="wf-icon" aria-hidden="true">
                {info.icon}
              </span>
              <span className="palette-text">
                <span className="palette-label">{info.label}</span>
                <span className="palette-description">{info.description}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
