/**
 * One row of the timeline: its label (indented by depth, with a toggle when it has rows under
 * it) and its bar as it was at the scrubbed moment — work solid, waiting hatched, each failed
 * attempt its own red segment — over a faint ghost of the whole bar when the scrubber is back
 * in time. Only the segments inside the visible window become elements.
 */
import type { BarStatus, TimelineBar, TimelineSegment } from '@weft/engine';
import { memo } from 'react';
import { formatDuration } from '../store/run-status.ts';
import { type TimeView, xOf } from './timeline-layout.ts';

export const ROW_HEIGHT = 22;

export interface DrawnBar {
  status: BarStatus | 'pending';
  segments: TimelineSegment[];
}

const ICONS: Record<TimelineBar['kind'], string> = {
  run: '▣',
  step: '•',
  'model-turn': '✦',
  'tool-call': '⚒',
  'map-item': '▹',
  'loop-iteration': '↻',
  approval: '✔',
  sleep: '☾',
  'child-run': '↳',
};

function describe(segment: TimelineSegment): string {
  const took = segment.end === null ? 'so far' : formatDuration(segment.end - segment.start);
  switch (segment.kind) {
    case 'work':
      return `working ${took}`;
    case 'retry':
      return `attempt ${segment.attempt} failed after ${took}: ${segment.error.message}`;
    case 'wait':
      switch (segment.reason) {
        case 'approval':
          return `waiting for approval ${took}`;
        case 'sleep':
          return `sleeping ${took}`;
        case 'backoff':
          return `backing off ${took} before retrying`;
        case 'child':
          return `waiting for the child run ${took}`;
        case 'queued':
          return `queued ${took}`;
      }
  }
}

function className(segment: TimelineSegment, status: DrawnBar['status']): string {
  switch (segment.kind) {
    case 'work':
      return `seg seg-work status-${status}`;
    case 'retry':
      return 'seg seg-retry';
    case 'wait':
      return `seg seg-wait wait-${segment.reason}`;
  }
}

interface RowProps {
  bar: TimelineBar;
  top: number;
  drawn: DrawnBar;
  /** The whole bar's extent, drawn faint while the scrubber is back in time (null: not drawn). */
  ghost: { start: number; end: number } | null;
  view: TimeView;
  width: number;
  expandable: boolean;
  expanded: boolean;
  loading: boolean;
  selected: boolean;
  onNode: boolean;
  onToggle(bar: TimelineBar): void;
}

export const TimelineRow = memo(function TimelineRow(props: RowProps) {
  const { bar, drawn, view, width } = props;
  const segments: { key: number; left: number; width: number; segment: TimelineSegment }[] = [];
  drawn.segments.forEach((segment, key) => {
    const left = xOf(view, segment.start);
    const right = xOf(view, segment.end ?? segment.start);
    if (right < -2 || left > width + 2) return;
    const from = Math.max(-2, left);
    segments.push({ key, left: from, width: Math.max(2, Math.min(width + 2, right) - from), segment });
  });
  const ghost =
    props.ghost === null
      ? null
      : { left: Math.max(-2, xOf(view, props.ghost.start)), right: Math.min(width + 2, xOf(view, props.ghost.end)) };
  return (
    <div
      role="treeitem"
      aria-level={bar.depth + 1}
      aria-expanded={props.expandable ? props.expanded : undefined}
      aria-selected={props.selected}
      tabIndex={props.selected ? 0 : -1}
      aria-label={`${bar.label} (${drawn.status})`}
      className={`timeline-row${props.selected ? ' selected' : ''}${props.onNode ? ' on-node' : ''}${drawn.status === 'pending' ? ' pending' : ''}`}
      style={{ top: props.top }}
      data-testid="timeline-row"
      data-bar-id={bar.id}
      data-step-id={bar.stepId ?? ''}
      data-kind={bar.kind}
      data-status={drawn.status}
    >
      <div className="timeline-label" style={{ paddingLeft: 4 + bar.depth * 12 }} title={bar.stepId ?? bar.label}>
        {props.expandable ? (
          <button
            type="button"
            className="timeline-toggle"
            aria-label={`${props.expanded ? 'Collapse' : 'Expand'} ${bar.label}`}
            onClick={(event) => {
              event.stopPropagation();
              props.onToggle(bar);
            }}
          >
            {props.loading ? '…' : props.expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span className="timeline-toggle" aria-hidden="true" />
        )}
        <span className={`timeline-icon status-${drawn.status}`} aria-hidden="true">
          {ICONS[bar.kind]}
        </span>
        <span className="timeline-text">{bar.label}</span>
        {bar.kind === 'child-run' && bar.childRunId ? (
          <a
            className="timeline-open small"
            href={`#/runs/${encodeURIComponent(bar.childRunId)}`}
            aria-label={`Open child run ${bar.childRunId}`}
            onClick={(event) => event.stopPropagation()}
          >
            open ↗
          </a>
        ) : null}
      </div>
      <div className="timeline-track">
        {ghost && ghost.right > ghost.left ? (
          <div className="seg seg-ghost" style={{ left: ghost.left, width: ghost.right - ghost.left }} />
        ) : null}
        {segments.map(({ key, left, width: size, segment }) => (
          <div
            key={key}
            className={className(segment, drawn.status)}
            style={{ left, width: size }}
            title={`${bar.label}: ${describe(segment)}`}
            data-segment={segment.kind === 'wait' ? `wait:${segment.reason}` : segment.kind}
          />
        ))}
      </div>
    </div>
  );
});
