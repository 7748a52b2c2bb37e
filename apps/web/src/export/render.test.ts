/** Smoke: the Export dialog and the import button render with their accessible names (server-side render). */
import { type Flow, flowToGraph } from '@weft/engine';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EditorStoreProvider } from '../store/EditorStoreProvider.tsx';
import { ExportDialog } from './ExportDialog.tsx';
import { ImportCodeButton } from './ImportCodeButton.tsx';

const flow: Flow = { irVersion: 1, id: 'demo', name: 'Demo', steps: [{ id: 'a', type: 'transform', value: 1 }] };

describe('export and import controls', () => {
  it('renders the Export dialog with a tab per target and its actions', () => {
    const html = renderToString(
      createElement(
        EditorStoreProvider,
        { init: { flowId: 'demo', version: 2, graph: flowToGraph(flow) } },
        createElement(ExportDialog, { onClose: () => {} }),
      ),
    );
    expect(html).toContain('Export Demo as TypeScript');
    expect(html).toContain('aria-label="Export target"');
    for (const label of ['Weft', 'Inngest', 'Temporal']) expect(html).toMatch(new RegExp(`role="tab"[^>]*>${label}<`));
    expect(html).toContain('aria-label="Copy code"');
    expect(html).toContain('aria-label="Download"');
    expect(html).toContain('aria-label="Close export"');
    expect(html).toContain('Version 2 as saved.');
  });

  it('renders the TypeScript import button and its file input', () => {
    const html = renderToString(createElement(ImportCodeButton));
    expect(html).toContain('aria-label="Import a TypeScript flow file"');
    expect(html).toContain('aria-label="TypeScript flow file to import"');
  });
});
