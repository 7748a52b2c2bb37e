/**
 * Export as TypeScript: a tab per target (weft, inngest, temporal), a read-only highlighted
 * preview of each file (CodeMirror, loaded lazily), Copy (the file shown) and Download (every
 * file of the target). The code is written on the server (flows.exportCode, flows.exportDocCode); unsaved edits are
 * exported as they are on the canvas (export-request.ts).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { useToast } from '../components/Toasts.tsx';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import { messageOf, trpc } from '../trpc.ts';
import {
  type CodeFile,
  downloadFiles,
  downloadLabel,
  downloadName,
  EXPORT_TARGETS,
  type ExportTargetId,
} from './export-files.ts';
import { exportRequest, fetchExport } from './export-request.ts';
import { LazyCodePreview } from './LazyCodePreview.tsx';
import './export.css';

type Loaded = { status: 'loading' } | { status: 'ready'; files: CodeFile[] } | { status: 'error'; message: string };

export function ExportDialog({ onClose }: { onClose(): void }) {
  const store = useEditorStoreApi();
  const toast = useToast();
  // The dialog is modal: the graph cannot change while it is open, so one snapshot serves.
  const [source] = useState(() => {
    const { flowId, version, dirty, graph } = store.getState();
    return { flowId, version, dirty, graph };
  });
  const [target, setTarget] = useState<ExportTargetId>('weft');
  const [fileIndex, setFileIndex] = useState(0);
  const [loaded, setLoaded] = useState<Partial<Record<ExportTargetId, Loaded>>>({});
  const requested = useRef(new Set<ExportTargetId>());
  const request = useMemo(() => exportRequest(source, target), [source, target]);

  useEffect(() => {
    if (!request.ok || requested.current.has(target)) return;
    requested.current.add(target);
    const set = (value: Loaded) => setLoaded((all) => ({ ...all, [target]: value }));
    set({ status: 'loading' });
    fetchExport(request.input, {
      exportCode: (input) => trpc.flows.exportCode.query(input),
      exportDocCode: (input) => trpc.flows.exportDocCode.mutate(input),
    })
      .then(({ files }) => set({ status: 'ready', files }))
      .catch((error: unknown) => {
        requested.current.delete(target);
        set({ status: 'error', message: messageOf(error) });
      });
  }, [request, target]);

  const current: Loaded = request.ok
    ? (loaded[target] ?? { status: 'loading' })
    : { status: 'error', message: request.message };
  const files = current.status === 'ready' ? current.files : [];
  const file = files[Math.min(fileIndex, files.length - 1)];
  const info = EXPORT_TARGETS.find((item) => item.id === target)!;

  const copy = async () => {
    if (!file) return;
    try {
      await navigator.clipboard.writeText(file.contents);
      toast(`Copied ${downloadName(file.path)}`, 'success');
    } catch (error) {
      toast(`Could not copy: ${messageOf(error)}`);
    }
  };

  return (
    <Dialog
      title={`Export ${source.graph.meta.name} as TypeScript`}
      onClose={onClose}
      closeLabel="Close export"
      className="export-dialog"
      footer={
        <>
          <span className="muted small">
            {source.dirty ? 'Includes your unsaved changes.' : `Version ${source.version ?? '—'} as saved.`} Secrets are
            read from process.env, never written.
          </span>
          <button type="button" className="button" aria-label="Copy code" disabled={!file} onClick={copy}>
            Copy
          </button>
          <button
            type="button"
            className="button primary"
            aria-label={files.length > 1 ? `Download ${files.length} files` : 'Download'}
            disabled={files.length === 0}
            onClick={() => downloadFiles(files)}
          >
            {downloadLabel(files.length)}
          </button>
        </>
      }
    >
      <div className="export-tabs" role="tablist" aria-label="Export target">
        {EXPORT_TARGETS.map((item) => (
          <button
            key={item.id}
            type="button"
            role="tab"
            id={`export-tab-${item.id}`}
            aria-selected={target === item.id}
            aria-controls="export-panel"
            onClick={() => {
              setTarget(item.id);
              setFileIndex(0);
            }}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="export-panel" aria-labelledby={`export-tab-${target}`} className="export-panel">
        <p className="muted small">{info.description}</p>
        {files.length > 1 ? (
          <div className="export-files" role="tablist" aria-label="Exported files">
            {files.map((item, index) => (
              <button
                key={item.path}
                type="button"
                role="tab"
                className="mono"
                aria-selected={file === item}
                onClick={() => setFileIndex(index)}
              >
                {item.path}
              </button>
            ))}
          </div>
        ) : file ? (
          <p className="mono small export-path">{file.path}</p>
        ) : null}
        {current.status === 'error' ? (
          <p className="field-error" role="alert">
            {current.message}
          </p>
        ) : file ? (
          <LazyCodePreview key={`${target}:${file.path}`} label={`Preview of ${file.path}`} value={file.contents} />
        ) : (
          <p className="muted">Writing {info.label} code…</p>
        )}
      </div>
    </Dialog>
  );
}
