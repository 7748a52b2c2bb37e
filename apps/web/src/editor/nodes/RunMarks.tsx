/**
 * Marks a node carries besides its status: "reused" when a replay answered its checkpoints from
 * the source run instead of executing them, and its comparison mark (with the first divergence)
 * while two runs or two versions are compared.
 */
import { memo } from 'react';
import { type NodeLive, useEditor } from '../../store/editor-hooks.ts';

/** Class names for the node's outer element. */
export function markClasses({ mark, first }: Pick<NodeLive, 'mark' | 'first'>): string {
  return `${mark ? ` compare-${mark}` : ''}${first ? ' compare-first' : ''}`;
}

const SHORT: Record<string, string> = {
  same: 'same',
  different: 'different',
  'only-a': 'only this run',
  'only-b': 'only other run',
  changed: 'changed',
  added: 'added',
  removed: 'removed',
};

/** The node's marks (its live state from `useNodeLive`); draw it only when it has one. */
export const RunMarks = memo(function RunMarks({ reused, mark, first }: Pick<NodeLive, 'reused' | 'mark' | 'first'>) {
  const versions = useEditor((state) => state.compare?.kind === 'versions');
  return (
    <div className="wf-marks">
      {reused ? (
        <span
          className="reused-badge"
          data-testid="node-reused"
          title={
            reused === 'all'
              ? 'Reused: answered from the source run, not executed'
              : 'Partly reused: some checkpoints answered from the source run, the rest executed'
          }
        >
          {reused === 'all' ? '↺ reused' : '↺ partly reused'}
        </span>
      ) : null}
      {mark ? (
        <span className={`compare-tag compare-tag-${mark}`} data-testid="node-compare" data-compare={mark}>
          {mark === 'same' && versions ? 'unchanged' : SHORT[mark]}
        </span>
      ) : null}
      {first ? (
        <span className="compare-tag compare-tag-first" data-testid="node-first-divergence">
          1st divergence
        </span>
      ) : null}
    </div>
  );
});
