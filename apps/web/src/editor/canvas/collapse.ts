/**
 * Containers (map/loop) folded to their title bar, and branch/parallel steps folded to one edge
 * to their merge/join (graph/fold.ts), on demand, so a flow with large bodies stays light to
 * draw and to read. Which are folded is the canvas's view state, not the flow's: kept
 * in Canvas, handed to the nodes that draw the toggle (nodes/FoldButton.tsx) through this context.
 */
import { createContext, useContext } from 'react';

export interface Collapse {
  collapsed: ReadonlySet<string>;
  toggle(id: string): void;
}

export const CollapseContext = createContext<Collapse>({ collapsed: new Set(), toggle: () => undefined });

export const useCollapse = () => useContext(CollapseContext);
