/**
 * Import a flow written as TypeScript (the weft export shape) from the flow list: always a new
 * flow (flows.importCode picks a free id when the file's is taken, and the toast says so), then
 * opened in the editor. A file that does not import shows every problem with its line and column.
 */
import { type ChangeEvent, useRef, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { navigate } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import { messageOf, trpc } from '../trpc.ts';
import { type ImportFailure, importNotice, parseImportFailure } from './export-files.ts';
import './export.css';

export function ImportCodeButton() {
  const toast = useToast();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<(ImportFailure & { fileName: string }) | null>(null);

  const importFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    if (!/\.m?ts$/.test(file.name)) {
      toast(`${file.name} is not a .ts file: choose a flow exported as TypeScript (the Weft target)`);
      return;
    }
    setBusy(true);
    try {
      const result = await trpc.flows.importCode.mutate({ source: await file.text(), fileName: file.name });
      toast(importNotice(result), 'success');
      navigate({ screen: 'editor', flowId: result.flow.id });
    } catch (error) {
      const parsed = parseImportFailure(messageOf(error));
      if (parsed.problems.length > 0) setFailure({ ...parsed, fileName: file.name });
      else toast(`Could not import ${file.name}: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className="button"
        aria-label="Import a TypeScript flow file"
        disabled={busy}
        onClick={() => input.current?.click()}
      >
        ⇪ Import .ts…
      </button>
      <input
        ref={input}
        type="file"
        accept=".ts,.mts,video/mp2t,text/typescript"
        hidden
        aria-label="TypeScript flow file to import"
        onChange={importFile}
      />
      {failure ? (
        <Dialog
          alert
          title={`Could not import ${failure.fileName}`}
          closeLabel="Close import problems"
          className="import-errors-dialog"
          onClose={() => setFailure(null)}
          footer={
            <button type="button" className="button" onClick={() => setFailure(null)}>
              OK
            </button>
          }
        >
          <p>
            {failure.problems.length} problem{failure.problems.length === 1 ? '' : 's'}: nothing was imported.
          </p>
          <ul className="import-problems" aria-label="Import problems">
            {failure.problems.map((problem) => (
              <li key={`${problem.line}:${problem.column}:${problem.message}`}>
                <span className="where mono">
                  Line {problem.line}, column {problem.column}
                </span>
                {problem.message}
              </li>
            ))}
          </ul>
        </Dialog>
      ) : null}
    </>
  );
}
