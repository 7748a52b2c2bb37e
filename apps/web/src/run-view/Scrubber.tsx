/**
 * The scrubber: a slider over the run's events. At position k the canvas, the timeline and the
 * step inspector draw the state after event k (the store folds it with the engine's reducer from
 * the nearest snapshot). Buttons step by event and by step, Play re-enacts the run, Live follows
 * the end again.
 */
import type { RunEvent } from '@weft/engine';
import { useCallback, useRef } from 'react';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { nextIndex, type ScrubUnit } from './scrub.ts';
import { formatOffset } from './timeline-layout.ts';
import { type Speed, usePlayback } from './use-playback.ts';

const SPEEDS: { value: Speed; label: string }[] = [
  { value: 1, label: '1×' },
  { value: 10, label: '10×' },
  { value: 'max', label: 'Max' },
];

/** What an event was, in a few words. */
export function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case 'run.started':
      return `run started (${event.backend})`;
    case 'step.started':
      return `${event.stepId} started`;
    case 'step.delta':
      return `${event.stepId} streamed “${event.text.length > 24 ? `${event.text.slice(0, 24)}…` : event.text}”`;
    case 'step.completed':
      return `${event.stepId} completed${event.reused ? ' (reused)' : ''}`;
    case 'step.failed':
      return `${event.stepId} failed: ${event.error.message}`;
    case 'step.retrying':
      return `${event.stepId} attempt ${event.attempt} failed, retrying`;
    case 'approval.requested':
      return `${event.stepId} waits for approval`;
    case 'approval.resolved':
      return `${event.stepId} ${event.approved ? 'approved' : 'rejected'}${event.by ? ` by ${event.by}` : ''}`;
    case 'child.started':
      return `${event.stepId} started child run ${event.childRunId}`;
    case 'run.handed-off':
      return `handed off from ${event.from} to ${event.to} at ${event.checkpoint}`;
    case 'run.engine-unreachable':
      return `waiting for ${event.engine}: ${event.error.message}`;
    case 'run.engine-reached':
      return `${event.engine} took the run`;
    case 'run.completed':
      return 'run completed';
    case 'run.failed':
      return `run failed: ${event.error.message}`;
    case 'run.cancelled':
      return 'run cancelled';
  }
}

export function Scrubber() {
  const store = useEditorStoreApi();
  const length = useEditor((state) => state.run?.length ?? 0);
  const cursor = useEditor((state) => state.run?.cursor ?? null);
  const status = useEditor((state) => state.run?.state.status ?? null);
  const { playing, toggle, speed, setSpeed } = usePlayback();
  const tape = store.getState().runTape();
  const index = cursor ?? length - 1;
  const event = tape?.events[index];
  const first = tape?.events[0];
  const pending = useRef<number | null>(null);

  // A drag fires many inputs per frame: draw the last one of each frame.
  const scrubTo = useCallback(
    (value: number) => {
      const scheduled = pending.current !== null;
      pending.current = value;
      if (scheduled) return;
      requestAnimationFrame(() => {
        const target = pending.current;
        pending.current = null;
        if (target !== null) store.getState().setCursor(target);
      });
    },
    [store],
  );
  const move = (direction: 1 | -1, unit: ScrubUnit) => {
    const events = store.getState().runTape()?.events ?? [];
    store.getState().setCursor(nextIndex(events, index, direction, unit));
  };
  const running = status === 'running' || status === 'waiting';
  const label = event ? describeEvent(event) : 'no events yet';

  return (
    <fieldset
      className="scrubber"
      aria-label="Scrubber"
      data-testid="scrubber"
      data-index={index}
      data-seq={event?.seq ?? 0}
    >
      <div className="scrubber-buttons">
        <button
          type="button"
          className="button ghost small"
          aria-label="Previous step"
          title="Previous step (Shift+← or [)"
          onClick={() => move(-1, 'step')}
          disabled={index <= 0}
        >
          «
        </button>
        <button
          type="button"
          className="button ghost small"
          aria-label="Previous event"
          title="Previous event (←)"
          onClick={() => move(-1, 'event')}
          disabled={index <= 0}
        >
          ◀
        </button>
        <button
          type="button"
          className="button small"
          aria-label={playing ? 'Pause' : 'Play'}
          aria-pressed={playing}
          onClick={toggle}
          disabled={length === 0}
        >
          {playing ? '❚❚ Pause' : '▶ Play'}
        </button>
        <button
          type="button"
          className="button ghost small"
          aria-label="Next event"
          title="Next event (→)"
          onClick={() => move(1, 'event')}
          disabled={cursor === null}
        >
          ▶
        </button>
        <button
          type="button"
          className="button ghost small"
          aria-label="Next step"
          title="Next step (Shift+→ or ])"
          onClick={() => move(1, 'step')}
          disabled={cursor === null}
        >
          »
        </button>
        <select
          className="input small scrubber-speed"
          aria-label="Playback speed"
          value={String(speed)}
          onChange={(change) =>
            setSpeed(change.target.value === 'max' ? 'max' : (Number(change.target.value) as Speed))
          }
        >
          {SPEEDS.map((option) => (
            <option key={option.label} value={String(option.value)}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <input
        type="range"
        className="scrubber-range"
        aria-label="Event position"
        aria-valuetext={event ? `event ${event.seq}: ${label}` : 'no events'}
        min={0}
        max={Math.max(0, length - 1)}
        step={1}
        value={Math.max(0, index)}
        disabled={length === 0}
        onChange={(change) => scrubTo(Number(change.target.value))}
      />
      <div className="scrubber-status small">
        <span className="mono" data-testid="scrubber-position">
          {length === 0 ? '0 / 0' : `${index + 1} / ${length}`}
        </span>{' '}
        {event && first ? <span className="muted mono">{formatOffset(event.at - first.at, 1)}</span> : null}{' '}
        <span className="scrubber-event" data-testid="scrubber-event" title={label}>
          {label}
        </span>
        {cursor === null ? (
          <span className={`scrubber-live${running ? ' on' : ''}`}>{running ? '● live' : 'end'}</span>
        ) : (
          <button
            type="button"
            className="button ghost small"
            aria-label={running ? 'Follow live' : 'Go to the end'}
            onClick={() => store.getState().setCursor(null)}
          >
            {running ? '● Live' : 'End ⇥'}
          </button>
        )}
      </div>
    </fieldset>
  );
}
