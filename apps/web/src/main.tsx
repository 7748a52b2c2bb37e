import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import './styles.css';
// Global sheets imported by components that are now loaded on demand (the run dock, the export
// dialog): the canvas column and every dialog use them from the first render.
import './run-view/run-view.css';
import './export/export.css';
import { App } from './App.tsx';
import { prefetchRouteFlow } from './editor/flow-prefetch.ts';

// Before the first render: the flow an editor address names is on its way while React starts.
prefetchRouteFlow(window.location.hash);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
