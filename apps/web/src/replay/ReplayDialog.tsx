/**
 * "Replay from here": a new run from a checkpoint of the past run on the canvas, reusing what
 * completed before it. The dialog edits the flow version, the flow input (prefilled with the
 * run's), per checkpoint recorded / live / pinned (a pin starts from the recorded result), the
 * approvals before the point and the backend; the preview below answers for exactly those
 * choices, and Start needs it — and, when steps with side effects would run again, the
 * confirmation. Started, the new run opens live on the canvas. A failed start keeps every field.
 */
import type { RunState } from '@weft/engine';
import { useEffect, useMemo, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { navigate } from '../components/route.ts';
import { BackendOptions, useBackends } from '../runs/use-backends.tsx';
import { useLatestVersion } from '../runs/use-latest-version.ts';
import { describeError, trpc } from '../trpc.ts';
import { CheckpointModes } from './CheckpointModes.tsx';
import { ReplayPreviewView } from './ReplayPreviewView.tsx';
import {
  buildRequest,
  type CheckpointMode,
  checkpointsOf,
  initialForm,
  modeOf,
  pinTargetOf,
  type ReplayForm,
  setMode,
} from './replay-form.ts';
import { requestKey, useReplayPreview } from './use-replay-preview.ts';
import './replay.css';

export function ReplayDialog({
  flowId,
  runId,
  state,
  from,
  editOutput,
  onClose,
}: {
  flowId: string;
  runId: string;
  state: RunState;
  from: string;
  editOutput: boolean;
  onClose(): void;
}) {
  const backends = useBackends();
  const latest = useLatestVersion(flowId);
  const [form, setForm] = useState<ReplayForm>(() =>
    initialForm(state, from, editOutput, state.backend ?? 'inprocess'),
  );
  const [confirmed, setConfirmed] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const checkpoints = useMemo(() => checkpointsOf(state), [state]);
  const pinTarget = pinTargetOf(state, from);
  const built = buildRequest(runId, from, form);
  const request = built.ok ? built.request : null;
  const key = requestKey(request);
  const preview = useReplayPreview(request);
  const ready = preview.status === 'ready' && preview.key === key ? preview.preview : null;
  // While a new preview loads, the last one's list still stands (a confirmation survives typing).
  const shown = ready ?? (preview.status === 'loading' ? preview.last : null);
  const sideEffectKey = shown ? shown.sideEffects.map((effect) => effect.stepId).join('\n') : '';
  // A confirmation holds for the side effects it was given for, no others.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset exactly when the list changes
  useEffect(() => setConfirmed(false), [sideEffectKey]);

  const update = (next: Partial<ReplayForm>) => {
    setForm((current) => ({ ...current, ...next }));
    setStartError(null);
  };
  const onMode = (checkpoint: string, mode: CheckpointMode) => {
    setForm((current) => setMode(current, state, checkpoint, mode));
    setStartError(null);
  };
  const onPin = (checkpoint: string, text: string) => update({ pins: { ...form.pins, [checkpoint]: text } });

  const needsConfirm = ready !== null && ready.sideEffects.length > 0;
  const blocked = !built.ok
    ? 'Fix the fields marked above'
    : !ready
      ? preview.status === 'error'
        ? 'The preview failed'
        : 'Waiting for the preview'
      : needsConfirm && !confirmed
        ? 'Confirm the side effects first'
        : null;

  const start = async () => {
    if (!request || blocked) return;
    setStarting(true);
    setStartError(null);
    try {
      const started = await trpc.runs.replay.mutate({ ...request, confirmSideEffects: needsConfirm && confirmed });
      onClose();
      navigate({ screen: 'editor', flowId, runId: started.runId });
    } catch (error) {
      setStartError(describeError(error));
    } finally {
      setStarting(false);
    }
  };

  const errorOf = (field: string) => (built.ok ? undefined : built.errors.find((error) => error.field === field));
  const inputError = errorOf('Flow input');
  const pinned = pinTarget !== null && modeOf(form, pinTarget) === 'pinned';

  return (
    <Dialog
      title={
        <>
          Replay from <span className="mono">{from}</span>
        </>
      }
      className="replay-dialog"
      onClose={onClose}
      closeLabel="Close replay"
      footer={
        <>
          <span className="muted small">{blocked ?? 'Starts a new run; the source run is not changed.'}</span>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button primary"
            aria-label="Start replay"
            disabled={blocked !== null || starting}
            title={blocked ?? undefined}
            onClick={start}
          >
            {starting ? 'Starting…' : '↺ Start replay'}
          </button>
        </>
      }
    >
      <p className="muted small">
        Run <span className="mono">{runId}</span> again from <span className="mono">{from}</span>: what completed before
        it is answered from this run's record (no call, no cost), the rest runs.
      </p>
      <div className="replay-grid">
        <div className="replay-options">
          <fieldset className="field">
            <legend>Flow version</legend>
            <label className="choice">
              <input
                type="radio"
                name="replay-version"
                checked={form.version === 'original'}
                onChange={() => update({ version: 'original' })}
              />{' '}
              The version this run ran (v{state.flowVersion ?? '?'})
            </label>
            <label className="choice">
              <input
                type="radio"
                name="replay-version"
                checked={form.version === 'current'}
                onChange={() => update({ version: 'current' })}
              />{' '}
              The current version{latest !== null ? ` (v${latest})` : ''}
            </label>
          </fieldset>
          <div className="field">
            <label htmlFor="replay-input">Flow input (JSON)</label>
            <textarea
              id="replay-input"
              className={`textarea mono${inputError ? ' invalid' : ''}`}
              aria-invalid={inputError ? true : undefined}
              aria-describedby={inputError ? 'replay-input-error' : undefined}
              rows={Math.min(10, Math.max(3, form.input.split('\n').length))}
              spellCheck={false}
              value={form.input}
              onChange={(event) => update({ input: event.target.value })}
            />
            {inputError ? (
              <p id="replay-input-error" className="field-error" role="alert">
                {inputError.field} {inputError.message}
              </p>
            ) : null}
          </div>
          {pinTarget ? (
            <label className="choice">
              <input
                type="checkbox"
                checked={pinned}
                onChange={(event) => onMode(pinTarget, event.target.checked ? 'pinned' : 'default')}
              />{' '}
              Edit this step's output (pin <span className="mono">{pinTarget}</span>)
            </label>
          ) : null}
          <fieldset className="field">
            <legend>Approvals before this step</legend>
            <label className="choice">
              <input
                type="radio"
                name="replay-approvals"
                checked={form.approvals === 'reuse'}
                onChange={() => update({ approvals: 'reuse' })}
              />{' '}
              Reuse their decisions
            </label>
            <label className="choice">
              <input
                type="radio"
                name="replay-approvals"
                checked={form.approvals === 'ask'}
                onChange={() => update({ approvals: 'ask' })}
              />{' '}
              Ask again
            </label>
          </fieldset>
          <div className="field">
            <label htmlFor="replay-backend">Backend</label>
            <select
              id="replay-backend"
              className="input"
              value={form.backend}
              onChange={(event) => update({ backend: event.target.value })}
            >
              <BackendOptions backends={backends} />
            </select>
          </div>
        </div>
        <ReplayPreviewView state={preview} confirmed={confirmed} onConfirm={setConfirmed} />
      </div>
      <details className="replay-checkpoints" open={Object.keys(form.modes).length > 0}>
        <summary>Checkpoints: recorded, live or pinned ({checkpoints.length})</summary>
        <CheckpointModes
          checkpoints={checkpoints}
          form={form}
          preview={preview.status === 'ready' ? preview.preview : preview.status === 'loading' ? preview.last : null}
          onMode={onMode}
          onPin={onPin}
        />
      </details>
      {!built.ok && built.errors.some((error) => error !== inputError) ? (
        <ul className="field-error" role="alert" aria-label="Problems with the replay">
          {built.errors
            .filter((error) => error !== inputError)
            .map((error) => (
              <li key={error.field}>
                {error.field} {error.message}
              </li>
            ))}
        </ul>
      ) : null}
      {startError ? (
        <p className="field-error" role="alert">
          Could not start the replay: {startError}
        </p>
      ) : null}
    </Dialog>
  );
}
