import { Handle, Position } from '@xyflow/react';

/**
 * The bottom out-handles of a node: one default handle, or one per named arm, spread evenly and
 * labelled (`labels`: false far out, where the labels cannot be read).
 */
export function OutHandles({ handles, labels = true }: { handles: string[]; labels?: boolean }) {
  if (handles.length === 0) return <Handle type="source" position={Position.Bottom} />;
  return (
    <>
      {handles.map((handle, index) => {
        const left = `${((index + 1) / (handles.length + 1)) * 100}%`;
        return (
          <Handle key={handle} id={handle} type="source" position={Position.Bottom} style={{ left }} title={handle}>
            {labels ? <span className="handle-label">{handle}</span> : null}
          </Handle>
        );
      })}
    </>
  );
}
