/**
 * The timeline under the canvas: one row per checkpoint of the run (the engine's `timelineOf`),
 * drawn as it was at the scrubbed event. Rows are virtualised — only those in view become
 * elements — so a run of thousands of steps scrolls and scrubs as lightly as a small one.
 * Wheel zooms the time axis around the pointer (Shift+wheel scrolls rows), dragging pans both
 * ways, a click selects (the node too), a double-click moves the scrubber to the bar's start,
 * and a click on the axis moves it to that moment. A child run's row expands into the child's
 * own timeline, loaded on demand.
 */
import { barAt, eventIndexAt, nestTimeline, type TimelineBar, timelineOf } from '@weft/engine';
import { type PointerEvent as ReactPointerEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { nodeOfStep, runIsActive } from '../store/run-status.ts';
import { messageOf } from '../trpc.ts';
import { loadEvents } from './api.ts';
import { runHref } from './permalink.ts';
import { type DrawnBar, ROW_HEIGHT, TimelineRow } from './TimelineRow.tsx';
import { fitView, panBy, spanOf, type TimeView, ticks, timeOf, visibleRows, xOf, zoomAt } from './timeline-layout.ts';

const LABEL_WIDTH = 240;
const LIVE_REBUILD_MS = 200;
const OVERSCAN = 8;

type ChildTimeline =
  | { state: 'loading' }
  | { state: 'loaded'; bars: TimelineBar[] }
  | { state: 'error'; message: string };

/** A bar of a child run drawn at wall time `time` (its events are not on this run's scale of seqs). */
function atTime(bar: TimelineBar, time: number): DrawnBar {
  const segments = bar.segments
    .filter((segment) => segment.start <= time)
    .map((segment) => (segment.end === null || segment.end > time ? { ...segment, end: time } : segment));
  if (segments.length === 0) return { status: 'pending', segments };
  const last = bar.segments.at(-1)!;
  return { status: last.end !== null && last.end <= time ? bar.status : 'running', segments };
}

/** `value`, updated at most every `ms` (at once when `ms` is 0). */
function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (ms === 0) return;
    const timer = setTimeout(
      () => {
        last.current = Date.now();
        setShown(value);
      },
      Math.max(0, last.current + ms - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [value, ms]);
  return ms === 0 ? value : shown;
}

export function Timeline() {
  const store = useEditorStoreApi();
  const runId = useEditor((state) => state.run?.runId ?? null);
  const length = useEditor((state) => state.run?.length ?? 0);
  const cursor = useEditor((state) => state.run?.cursor ?? null);
  const live = useEditor((state) => runIsActive(state.run?.state.status));
  const selectedStepId = useEditor((state) => state.selectedStepId);
  const selectedNode = useEditor((state) => state.selectedId);
  const graph = useEditor((state) => state.graph);
  const nodeIds = useMemo(() => new Set(graph.nodes.map((node) => node.id)), [graph]);
  const tape = store.getState().runTape();

  // While a big run streams in, rebuilding its rows a few times a second is plenty.
  const drawnLength = useThrottled(length, live ? LIVE_REBUILD_MS : 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tape grows in place; its length says when
  const own = useMemo(() => (tape ? timelineOf(tape.events) : []), [tape, drawnLength]);
  const [children, setChildren] = useState<Record<string, ChildTimeline>>({});
  const bars = useMemo(() => {
    let out: TimelineBar[] = own;
    for (const [id, child] of Object.entries(children))
      if (child.state === 'loaded') out = nestTimeline(out, id, child.bars);
    return out;
  }, [own, children]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(() => visibleRows(bars, collapsed), [bars, collapsed]);

  const bodyRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 900, height: 200 });
  const [scrollTop, setScrollTop] = useState(0);
  useEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    const observer = new ResizeObserver(() => setSize({ width: body.clientWidth, height: body.clientHeight }));
    observer.observe(body);
    return () => observer.disconnect();
  }, []);
  const trackWidth = Math.max(100, size.width - LABEL_WIDTH);

  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [live]);
  const span = useMemo(() => spanOf(bars, live ? now : null), [bars, live, now]);
  // Null: fit the whole run (and keep fitting while it grows) until the user zooms or pans.
  const [zoomed, setZoomed] = useState<TimeView | null>(null);
  const view = zoomed ?? fitView(span, trackWidth);
  const viewRef = useRef(view);
  viewRef.current = view;

  // The scrubbed moment: its seq and time; while following, everything up to now.
  const event = tape && length > 0 ? tape.events[cursor ?? length - 1] : undefined;
  const seq = cursor === null ? Number.POSITIVE_INFINITY : (event?.seq ?? 0);
  const time = cursor === null ? (live ? Math.max(now, event?.at ?? now) : (event?.at ?? now)) : (event?.at ?? now);

  // A new run on the canvas starts with its own rows.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on the run, not on what it holds
  useEffect(() => {
    setChildren({});
    setCollapsed(new Set());
    setZoomed(null);
  }, [runId]);

  const toggle = useCallback(
    (bar: TimelineBar) => {
      if (bar.kind === 'child-run' && bar.childRunId && !Object.hasOwn(children, bar.id)) {
        const childRunId = bar.childRunId;
        setChildren((current) => ({ ...current, [bar.id]: { state: 'loading' } }));
        loadEvents(childRunId)
          .then((events) =>
            setChildren((current) => ({ ...current, [bar.id]: { state: 'loaded', bars: timelineOf(events) } })),
          )
          .catch((error: unknown) =>
            setChildren((current) => ({ ...current, [bar.id]: { state: 'error', message: messageOf(error) } })),
          );
        return;
      }
      setCollapsed((current) => {
        const next = new Set(current);
        if (next.has(bar.id)) next.delete(bar.id);
        else next.add(bar.id);
        return next;
      });
    },
    [children],
  );

  const select = useCallback(
    (bar: TimelineBar) => {
      const state = store.getState();
      if (bar.kind === 'run') return state.select(null);
      // A row of a child run selects the step that started it here.
      const hostId =
        bar.runId === undefined ? bar.stepId : own.find((candidate) => candidate.id === bar.id.split('>')[0])?.stepId;
      state.selectRunStep(hostId ?? null);
    },
    [store, own],
  );

  const seek = useCallback(
    (bar: TimelineBar) => {
      const first = bar.segments[0];
      if (!first) return;
      if (bar.runId !== undefined) {
        window.location.hash = runHref({ runId: bar.runId, at: first.startSeq, step: bar.stepId });
        return;
      }
      store.getState().scrubToSeq(first.startSeq);
      if (bar.stepId !== null) store.getState().selectRunStep(bar.stepId);
    },
    [store],
  );

  // The selected step's row comes into view (a click on the canvas, in the transcript, a permalink).
  useEffect(() => {
    const body = bodyRef.current;
    if (!body || selectedStepId === null) return;
    const index = rows.findIndex((row) => row.bar.stepId === selectedStepId && row.bar.runId === undefined);
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    if (top < body.scrollTop || top + ROW_HEIGHT > body.scrollTop + body.clientHeight)
      body.scrollTop = Math.max(0, top - body.clientHeight / 3);
  }, [selectedStepId, rows]);

  // Keyboard focus follows the selected row while it is in the tree.
  useEffect(() => {
    const body = bodyRef.current;
    if (!body?.contains(document.activeElement)) return;
    body.querySelector<HTMLElement>('[role="treeitem"][aria-selected="true"]')?.focus({ preventScroll: true });
  });

  // Wheel: zoom around the pointer; sideways: pan; Shift: scroll the rows; over the labels: native.
  useEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    const onWheel = (event: WheelEvent) => {
      if (event.target instanceof Element && event.target.closest('.timeline-label')) return;
      event.preventDefault();
      if (event.shiftKey) {
        body.scrollTop += event.deltaY;
        return;
      }
      const x = event.clientX - body.getBoundingClientRect().left - LABEL_WIDTH;
      if (Math.abs(event.deltaX) > Math.abs(event.deltaY)) setZoomed(panBy(viewRef.current, -event.deltaX));
      else setZoomed(zoomAt(viewRef.current, x, Math.exp(event.deltaY * 0.0015)));
    };
    body.addEventListener('wheel', onWheel, { passive: false });
    return () => body.removeEventListener('wheel', onWheel);
  }, []);

  // Drag: pan time and rows; a press that did not move is a click (select), two a seek.
  const drag = useRef<{ x: number; y: number; view: TimeView; top: number; moved: boolean } | null>(null);
  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (event.button !== 0 || (event.target instanceof Element && event.target.closest('button, a'))) return;
    drag.current = { x: event.clientX, y: event.clientY, view, top: bodyRef.current?.scrollTop ?? 0, moved: false };
  };
  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    if (!start.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!start.moved) event.currentTarget.setPointerCapture(event.pointerId);
    start.moved = true;
    setZoomed(panBy(start.view, dx));
    if (bodyRef.current) bodyRef.current.scrollTop = start.top - dy;
  };
  const rowAt = (target: EventTarget | null) => {
    const id = target instanceof Element ? target.closest('[data-bar-id]')?.getAttribute('data-bar-id') : null;
    return id ? bars.find((bar) => bar.id === id) : undefined;
  };
  const onPointerUp = (event: ReactPointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    drag.current = null;
    if (!start || start.moved) return;
    const bar = rowAt(event.target);
    if (bar) select(bar);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + size.height) / ROW_HEIGHT) + OVERSCAN);
  const cursorX = xOf(view, time);
  const origin = span.start;

  return (
    <section className="timeline" aria-label="Timeline">
      <div className="timeline-head">
        <div className="timeline-head-label small" style={{ width: LABEL_WIDTH }}>
          <span className="muted">{bars.length} bars</span>
          <button
            type="button"
            className="button ghost small"
            aria-label="Zoom in"
            onClick={() => setZoomed(zoomAt(view, trackWidth / 2, 0.5))}
          >
            +
          </button>
          <button
            type="button"
            className="button ghost small"
            aria-label="Zoom out"
            onClick={() => setZoomed(zoomAt(view, trackWidth / 2, 2))}
          >
            −
          </button>
          <button
            type="button"
            className="button ghost small"
            aria-label="Fit the whole run"
            disabled={zoomed === null}
            onClick={() => setZoomed(null)}
          >
            Fit
          </button>
        </div>
        <button
          type="button"
          className="timeline-axis"
          aria-label="Time axis: click to move the scrubber to that moment"
          onClick={(click) => {
            const events = store.getState().runTape()?.events ?? [];
            const x = click.clientX - click.currentTarget.getBoundingClientRect().left;
            store.getState().setCursor(Math.max(0, eventIndexAt(events, timeOf(view, x))));
          }}
        >
          {ticks(view, trackWidth, origin).map((tick) => (
            <span key={tick.label} className="timeline-tick small" style={{ left: tick.x }}>
              {tick.label}
            </span>
          ))}
        </button>
      </div>
      <div
        className="timeline-body"
        ref={bodyRef}
        role="tree"
        aria-label="Timeline rows"
        tabIndex={0}
        onScroll={(scroll) => setScrollTop(scroll.currentTarget.scrollTop)}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => {
          drag.current = null;
        }}
        onKeyDown={(key) => {
          // ↑ / ↓ walk the rows (← / → belong to the scrubber); Enter moves the scrubber to the row's start.
          const index = rows.findIndex((row) => row.bar.stepId === selectedStepId && row.bar.runId === undefined);
          const at = (offset: number) => rows[Math.max(0, Math.min(rows.length - 1, index + offset))];
          const target = key.key === 'ArrowDown' ? at(1) : key.key === 'ArrowUp' ? at(-1) : undefined;
          if (target) {
            key.preventDefault();
            select(target.bar);
          } else if (key.key === 'Enter' && index >= 0) seek(rows[index]!.bar);
        }}
        onDoubleClick={(click) => {
          const bar = rowAt(click.target);
          if (bar) seek(bar);
        }}
      >
        <div className="timeline-rows" style={{ height: rows.length * ROW_HEIGHT }}>
          {rows.slice(first, last).map((row, offset) => {
            const { bar } = row;
            const drawn: DrawnBar = bar.runId === undefined ? barAt(bar, seq, time) : atTime(bar, time);
            const start = bar.segments[0]?.start;
            const end = bar.segments.at(-1)?.end ?? span.end;
            // Own entries only: a bar's id is a step id, and a step may be called `toString`.
            const child = Object.hasOwn(children, bar.id) ? children[bar.id] : undefined;
            return (
              <TimelineRow
                key={bar.id}
                bar={bar}
                top={(first + offset) * ROW_HEIGHT}
                drawn={drawn}
                ghost={cursor !== null && start !== undefined ? { start, end } : null}
                view={view}
                width={trackWidth}
                expandable={row.expandable}
                expanded={row.expanded}
                loading={child?.state === 'loading'}
                selected={bar.runId === undefined && bar.stepId !== null && bar.stepId === selectedStepId}
                onNode={
                  selectedNode !== null &&
                  bar.runId === undefined &&
                  bar.stepId !== null &&
                  nodeOfStep(bar.stepId, nodeIds) === selectedNode
                }
                onToggle={toggle}
              />
            );
          })}
        </div>
        <div
          className="timeline-cursor"
          style={{ left: LABEL_WIDTH + cursorX, height: Math.max(size.height, rows.length * ROW_HEIGHT) }}
          aria-hidden="true"
        />
      </div>
      {Object.entries(children).map(([id, child]) =>
        child.state === 'error' ? (
          <p key={id} className="field-error small">
            Could not load {id.replace(/^child:/, 'child run ')}: {child.message}
          </p>
        ) : null,
      )}
    </section>
  );
}
