/**
 * Where the canvas opens and what it remembers: the address's `?view=<x>,<y>,<zoom>` wins, then
 * the view last left on this flow (localStorage, per flow), then the whole flow fitted. As the
 * user pans and zooms, both are kept up to date when a move ends — not on each of its frames (a
 * drag is dozens of moves a second, and a large flow's pan has no frame time to spare), and
 * debounced, as wheel zooms end one after another — the address with `history.replaceState`: a
 * pan is not a page for the back button, and no route reader re-renders for it. Only the editor
 * screen does this; the run view always opens fitted, showing the whole run.
 */
import { useReactFlow, type Viewport } from '@xyflow/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type CanvasView, hrefOf, parseRoute, parseView } from '../../components/route.ts';

const SAVE_AFTER_MS = 300;
const storageKey = (flowId: string) => `weft:view:${flowId}`;

/** Whether the address is this flow's editor screen (not the run view, not another flow). */
function onEditorOf(flowId: string): boolean {
  const route = parseRoute(window.location.hash);
  return route.screen === 'editor' && route.flowId === flowId && route.runId === undefined;
}

function rememberedView(flowId: string): CanvasView | undefined {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(flowId)) ?? 'null') as CanvasView | null;
    return saved ? parseView(`${saved.x},${saved.y},${saved.zoom}`) : undefined;
  } catch {
    return undefined; // storage refused (private mode) or a value written by something else
  }
}

/** The view to open at, or undefined to fit the whole flow. */
export function startingView(flowId: string): CanvasView | undefined {
  if (!onEditorOf(flowId)) return undefined;
  const route = parseRoute(window.location.hash);
  return (route.screen === 'editor' ? route.view : undefined) ?? rememberedView(flowId);
}

/**
 * Returns the view to open at (fixed at mount) and the `onMoveEnd` handler that remembers views.
 * A view typed into the address later (a hashchange) moves the canvas there.
 */
export function useViewportMemory(flowId: string) {
  const [start] = useState(() => startingView(flowId));
  const { setViewport } = useReactFlow();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const onMoveEnd = useCallback(
    (event: MouseEvent | TouchEvent | null, viewport: Viewport) => {
      // Only what a person did: fit-to-view on open (no event) leaves the address as it was.
      if (!event) return;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        if (!onEditorOf(flowId)) return;
        try {
          localStorage.setItem(storageKey(flowId), JSON.stringify(viewport));
        } catch {
          // Not remembered across visits; the address still has it.
        }
        const href = hrefOf({ screen: 'editor', flowId, view: viewport });
        if (window.location.hash !== href) history.replaceState(history.state, '', href);
      }, SAVE_AFTER_MS);
    },
    [flowId],
  );

  useEffect(() => () => clearTimeout(timer.current), []);

  useEffect(() => {
    const onHashChange = () => {
      if (!onEditorOf(flowId)) return;
      const route = parseRoute(window.location.hash);
      if (route.screen === 'editor' && route.view) void setViewport(route.view);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [flowId, setViewport]);

  return { start, onMoveEnd };
}
