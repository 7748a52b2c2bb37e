/**
 * Whether the canvas is zoomed far out (Canvas.tsx, FAR_ZOOM): step nodes are then drawn as
 * light boxes (StepNode's FarStepNode) — one store subscription and two handles instead of a
 * dozen and a head of text, which matters when a pan mounts and unmounts hundreds of them.
 */
import { createContext, useContext } from 'react';

export const FarContext = createContext(false);

export const useFar = () => useContext(FarContext);
