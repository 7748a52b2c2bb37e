/**
 * "Import…" on the flow list: one or more IR JSON files (a flow with the flows it spawns or calls
 * as tools can be picked together, or held in one file as an array). When a flow uses another that
 * is neither in the files nor in the workspace, nothing is imported yet: a dialog names exactly
 * which flow is missing and which flow needs it, and offers to pick its file too — or to take it
 * from the server's examples when they have it.
 */
import { type ChangeEvent, useRef, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { useToast } from '../components/Toasts.tsx';
import { listOfIds } from '../examples/example-text.ts';
import { describeError, trpc } from '../trpc.ts';

type ImportResult = Awaited<ReturnType<typeof trpc.flows.importFiles.mutate>>;
type MissingFlow = ImportResult['missing'][number];
interface PickedFile {
  name: string;
  json: string;
}

async function read(list: FileList | null): Promise<PickedFile[]> {
  return Promise.all([...(list ?? [])].map(async (file) => ({ name: file.name, json: await file.text() })));
}

/** What the toast says was imported. */
function importedText(imported: ImportResult['imported']): string {
  if (imported.length === 1) {
    const [flow] = imported;
    return flow!.created ? `Imported ${flow!.name}` : `Imported ${flow!.name} as version ${flow!.version}`;
  }
  return `Imported ${listOfIds(imported.map((flow) => flow.id))}`;
}

export function ImportFlowsButton({ onImported }: { onImported(): void }) {
  const toast = useToast();
  const first = useRef<HTMLInputElement>(null);
  const more = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState<{ files: PickedFile[]; missing: MissingFlow[] } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (files: PickedFile[], fromExamples = false) => {
    if (files.length === 0) return;
    setBusy(true);
    try {
      const result = await trpc.flows.importFiles.mutate({ files, fromExamples });
      if (result.missing.length > 0) {
        setPending({ files, missing: result.missing });
        return;
      }
      setPending(null);
      toast(importedText(result.imported), 'success');
      onImported();
    } catch (error) {
      toast(`Could not import ${listOfIds(files.map((file) => file.name))}: ${describeError(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const pickFirst = async (event: ChangeEvent<HTMLInputElement>) => {
    const files = await read(event.target.files);
    event.target.value = '';
    await submit(files);
  };

  const pickMore = async (event: ChangeEvent<HTMLInputElement>) => {
    const added = await read(event.target.files);
    event.target.value = '';
    if (!pending || added.length === 0) return;
    // A file picked again replaces its earlier reading.
    const names = new Set(added.map((file) => file.name));
    await submit([...pending.files.filter((file) => !names.has(file.name)), ...added]);
  };

  const missingNames = pending ? pending.missing.map((need) => `${need.flow}.json`) : [];
  const allInExamples = pending?.missing.every((need) => need.inExamples) ?? false;
  return (
    <>
      <button type="button" className="button" aria-label="Import a flow file" onClick={() => first.current?.click()}>
        ⇪ Import…
      </button>
      <input
        ref={first}
        type="file"
        accept=".json,application/json"
        multiple
        hidden
        aria-label="Flow file to import"
        onChange={pickFirst}
      />
      <input
        ref={more}
        type="file"
        accept=".json,application/json"
        multiple
        hidden
        aria-label="Missing flow files to import"
        onChange={pickMore}
      />
      {pending ? (
        <Dialog
          title="A flow it uses is missing"
          onClose={() => setPending(null)}
          footer={
            <>
              {allInExamples ? (
                <button
                  type="button"
                  className="button primary"
                  disabled={busy}
                  onClick={() => submit(pending.files, true)}
                >
                  Import {listOfIds(pending.missing.map((need) => need.flow))} from the examples
                </button>
              ) : null}
              <button
                type="button"
                className={allInExamples ? 'button' : 'button primary'}
                disabled={busy}
                onClick={() => more.current?.click()}
              >
                Pick {listOfIds(missingNames)}…
              </button>
              <button type="button" className="button ghost" onClick={() => setPending(null)}>
                Cancel
              </button>
            </>
          }
        >
          <p>Nothing was imported yet:</p>
          <ul>
            {pending.missing.map((need) => (
              <li key={need.flow}>
                <strong>{need.neededBy}</strong> uses the flow <code>{need.flow}</code>, which is not in this workspace
                {need.inExamples ? ' (the examples have it)' : ''}.
              </li>
            ))}
          </ul>
          <p className="muted">Pick its file to import them together ({listOfIds(missingNames)}, usually beside it).</p>
        </Dialog>
      ) : null}
    </>
  );
}
