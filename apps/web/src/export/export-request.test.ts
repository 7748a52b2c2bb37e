import { type Flow, flowToGraph } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { exportRequest, fetchExport } from './export-request.ts';

const flow: Flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  steps: [{ id: 'a', type: 'transform', value: '=input.x' }],
};
const graph = flowToGraph(flow);

describe('exportRequest', () => {
  it('exports a saved graph by id and version', () => {
    expect(exportRequest({ flowId: 'demo', version: 3, dirty: false, graph }, 'temporal')).toEqual({
      ok: true,
      unsaved: false,
      input: { id: 'demo', version: 3, target: 'temporal' },
    });
  });

  it('sends the compiled document of unsaved edits', () => {
    const edited = { ...graph, meta: { ...graph.meta, name: 'Edited' } };
    const request = exportRequest({ flowId: 'demo', version: 3, dirty: true, graph: edited }, 'weft');
    expect(request).toMatchObject({
      ok: true,
      unsaved: true,
      input: { target: 'weft', doc: { id: 'demo', name: 'Edited' } },
    });
    if (request.ok && 'doc' in request.input) expect(request.input.doc.steps).toEqual(flow.steps);
  });

  it('refuses a graph that does not compile, saying why', () => {
    const broken = { ...graph, edges: [] };
    const request = exportRequest({ flowId: 'demo', version: 1, dirty: true, graph: broken }, 'weft');
    expect(request.ok).toBe(false);
    if (!request.ok) expect(request.message).toMatch(/^The flow has \d+ problems? .*fix/);
  });
});

describe('fetchExport', () => {
  it('sends a stored version to exportCode and a document to exportDocCode', async () => {
    const calls: string[] = [];
    const api = {
      exportCode: async () => {
        calls.push('exportCode');
        return { files: [] };
      },
      exportDocCode: async () => {
        calls.push('exportDocCode');
        return { files: [] };
      },
    };
    await fetchExport({ id: 'demo', version: 1, target: 'weft' }, api);
    await fetchExport({ doc: { id: 'demo' }, target: 'inngest' }, api);
    expect(calls).toEqual(['exportCode', 'exportDocCode']);
  });
});
