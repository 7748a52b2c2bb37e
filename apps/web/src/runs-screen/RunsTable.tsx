/**
 * The runs, one fixed-height row each, rendered only where the user looks (row-window.ts): the
 * DOM holds about a screenful of rows however many are loaded, and reaching the end asks for the
 * next page. A row opens the run view; its first cell is a real link, so the keyboard and the
 * middle click work as on any link.
 */
import { isFinalStatus } from '@weft/engine';
import { type MouseEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { hrefOf, navigate } from '../components/route.ts';
import { formatCost, formatDuration, formatStart, formatTokens } from './format.ts';
import { rowWindow, wantsMore } from './row-window.ts';
import type { RunRow } from './run-rows.ts';

export const ROW_HEIGHT = 40;

/** The header's height: the rows' window starts below it. */
const HEAD_HEIGHT = 32;

const COLUMNS = [
  { label: 'Status', width: 104 },
  { label: 'Run', width: undefined },
  { label: 'Backend', width: 96 },
  { label: 'Started', width: 150 },
  { label: 'Duration', width: 96, numeric: true },
  { label: 'Tokens (in → out)', width: 150, numeric: true },
  { label: 'Cost', width: 88, numeric: true },
];

interface Props {
  rows: RunRow[];
  hasMore: boolean;
  loadingMore: boolean;
  onMore(): void;
  /** Changes when the filters do: the list scrolls back to the top. */
  resetKey: string;
}

/** Re-renders every second while `on`, for the elapsed time of running rows. */
function useTick(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return on ? now : Date.now();
}

function Row({ run, index, now }: { run: RunRow; index: number; now: number }) {
  const href = hrefOf({ screen: 'run', runId: run.id });
  const ended = isFinalStatus(run.status);
  const cost = formatCost(run.costUsd, run.unpricedModels);
  // The whole row opens the run; the link itself (and a modified click) keep the browser's behaviour.
  const open = (click: MouseEvent) => {
    if (click.defaultPrevented || click.button !== 0 || click.metaKey || click.ctrlKey || click.shiftKey) return;
    if (click.target instanceof Element && click.target.closest('a')) return;
    navigate({ screen: 'run', runId: run.id });
  };
  return (
    <tr aria-rowindex={index + 2} className="runs-row" data-run-id={run.id} data-status={run.status} onClick={open}>
      <td>
        <span className={`status-badge status-${run.status}`}>{run.status}</span>
      </td>
      <td>
        <div className="runs-cell-run">
          <a href={href} className="runs-open" aria-label={`Open run ${run.id} (${run.status})`}>
            <span className="runs-flow">{run.flowId}</span> <span className="muted">v{run.flowVersion}</span>
          </a>
          <span className="mono muted runs-id" title={run.id}>
            {run.replayOf ? (
              <span title={`Replay of ${run.replayOf.runId} from ${run.replayOf.checkpoint}`}>↺ </span>
            ) : null}
            {run.parentRunId ? <span title={`Started by run ${run.parentRunId}`}>↳ </span> : null}
            {run.id.slice(0, 12)}
          </span>
          {run.error ? (
            <span className="runs-error small" title={run.error.message}>
              {run.error.message}
            </span>
          ) : null}
        </div>
      </td>
      <td className="small">
        {/* A handed-off run started in-process and went on on a durable engine: both, in order. */}
        {run.handoff && run.backend !== 'inprocess' ? (
          <span title={`Started in-process, handed off to ${run.backend} (at ${run.handoff.at})`}>
            inprocess→{run.backend}
          </span>
        ) : (
          run.backend
        )}
      </td>
      <td className="small" title={new Date(run.createdAt).toISOString()}>
        {formatStart(run.createdAt, now)}
      </td>
      <td className="small num">
        {run.durationMs !== null
          ? formatDuration(run.durationMs)
          : ended
            ? '—'
            : `${formatDuration(Math.max(0, now - run.createdAt))}…`}
      </td>
      <td className="small num mono">{formatTokens(run.tokens)}</td>
      <td className="small num mono" title={cost.title || undefined}>
        {cost.text}
      </td>
    </tr>
  );
}

function Spacer({ height }: { height: number }) {
  return (
    <tr className="runs-spacer">
      <td colSpan={COLUMNS.length} style={{ height }} />
    </tr>
  );
}

export function RunsTable({ rows, hasMore, loadingMore, onMore, resetKey }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    setViewport(element.clientHeight);
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the filters change
  useLayoutEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
    setScrollTop(0);
  }, [resetKey]);

  // Row i starts at HEAD_HEIGHT + i × ROW_HEIGHT, under the sticky header that covers the top.
  const visible = rowWindow(scrollTop, viewport - HEAD_HEIGHT, ROW_HEIGHT, rows.length);
  const shown = rows.slice(visible.first, visible.last);
  const more = hasMore && !loadingMore && wantsMore(visible, rows.length);
  useEffect(() => {
    if (more) onMore();
  }, [more, onMore]);
  const now = useTick(shown.some((run) => !isFinalStatus(run.status)));
  const below = (rows.length - visible.last) * ROW_HEIGHT;

  return (
    <div className="runs-scroller" ref={scroller} onScroll={(scroll) => setScrollTop(scroll.currentTarget.scrollTop)}>
      <table
        className="runs-table"
        aria-label="Runs"
        aria-rowcount={hasMore ? -1 : rows.length + 1}
        aria-busy={loadingMore}
      >
        <colgroup>
          {COLUMNS.map((column) => (
            <col key={column.label} style={{ width: column.width }} />
          ))}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            {COLUMNS.map((column) => (
              <th key={column.label} scope="col" className={column.numeric ? 'num' : undefined}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {/* Spacers stand in for the rows out of view, so the scrollbar is the whole list's. */}
          {visible.first > 0 ? <Spacer height={visible.first * ROW_HEIGHT} /> : null}
          {shown.map((run, offset) => (
            <Row key={run.id} run={run} index={visible.first + offset} now={now} />
          ))}
          {below > 0 ? <Spacer height={below} /> : null}
        </tbody>
      </table>
      {hasMore ? (
        <p className="runs-more muted small" aria-live="polite">
          {loadingMore ? 'Loading more runs…' : 'Scroll for more'}
        </p>
      ) : null}
    </div>
  );
}
