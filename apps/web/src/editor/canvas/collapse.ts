/**
 * Containers (map/loop) folded to their title bar on demand, so a flow with large bodies stays
 * light to draw and to read. Which are folded is the canvas's view state, not the flow's: kept
 * in Canvas, handed to the container nodes (which draw the toggle) through this context.
 */
import { createContext, useContext } from 'react';

export interface Collapse {
  collapsed: ReadonlySet<string>;
  toggle(id: string): void;
}

export const CollapseContext = createContext<Collapse>({ collapsed: new Set(), toggle: () => undefined });

export const useCollapse = () => useContext(CollapseContext);
