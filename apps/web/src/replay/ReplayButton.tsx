/**
 * "Replay from here" for one checkpoint of the past run on the canvas (a step, a model turn, a
 * tool call): a button that opens the replay dialog. Offered once the run has ended.
 */
import { isFinalStatus } from '@weft/engine';
import { useState } from 'react';
import { useEditor } from '../store/editor-hooks.ts';
import { ReplayDialog } from './ReplayDialog.tsx';

export function ReplayButton({ from, editOutput = false }: { from: string; editOutput?: boolean }) {
  const [open, setOpen] = useState(false);
  const flowId = useEditor((state) => state.flowId);
  const run = useEditor((state) => state.run);
  if (!run || !isFinalStatus(run.state.status)) return null;
  const label = editOutput ? `Edit output of ${from} and replay` : `Replay from ${from}`;
  return (
    <>
      <button
        type="button"
        className="button small"
        aria-label={label}
        title={
          editOutput
            ? 'Start a new run with this output pinned to a value you type'
            : 'Start a new run from here, reusing what completed before'
        }
        onClick={() => setOpen(true)}
      >
        {editOutput ? '✎ Edit output…' : '↺ Replay from here'}
      </button>
      {open ? (
        <ReplayDialog
          flowId={flowId}
          runId={run.runId}
          state={run.state}
          from={from}
          editOutput={editOutput}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}
