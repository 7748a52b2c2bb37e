/** The canvas legend while comparing: what each colour means, how many nodes carry it, and the way out. */
import { type CompareMark, markCounts, markLabel } from '../store/compare-view.ts';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import './compare.css';

const RUN_MARKS: CompareMark[] = ['same', 'different', 'only-a', 'only-b'];
const VERSION_MARKS: CompareMark[] = ['same', 'changed', 'added', 'removed'];

export function CompareLegend() {
  const store = useEditorStoreApi();
  const view = useEditor((state) => state.compare);
  if (!view) return null;
  const counts = markCounts(view.marks);
  const offCanvas = markCounts(Object.fromEntries(view.offCanvas.map((item) => [item.stepId, item.mark])));
  const marks = view.kind === 'runs' ? RUN_MARKS : VERSION_MARKS;
  return (
    <aside className="compare-legend" aria-label="Comparison legend">
      <div className="compare-legend-title">
        {view.kind === 'runs' ? (
          <>
            This run vs <span className="mono">{view.b.runId.slice(0, 16)}</span>
          </>
        ) : (
          <>
            v{view.a.version} → v{view.b.version}
          </>
        )}
      </div>
      <ul>
        {marks.map((mark) => (
          <li key={mark}>
            <span className={`swatch compare-${mark}`} aria-hidden="true" /> {markLabel(mark, view)}{' '}
            <span className="muted">
              ({counts[mark] ?? 0}
              {offCanvas[mark] ? ` + ${offCanvas[mark]} not on this canvas` : ''})
            </span>
          </li>
        ))}
        {view.kind === 'runs' ? (
          <li>
            <span className="swatch compare-first" aria-hidden="true" /> first divergence
            {view.comparison.firstDivergence ? (
              <span className="mono"> {view.comparison.firstDivergence}</span>
            ) : (
              <span className="muted"> (none)</span>
            )}
          </li>
        ) : null}
      </ul>
      <button
        type="button"
        className="button ghost small"
        aria-label="Close comparison"
        onClick={() => store.getState().setCompare(null)}
      >
        ✕ Close
      </button>
    </aside>
  );
}
