/** The fold toggle in a container's or a branch/parallel's head (editor/canvas/collapse.ts). */
import { useCollapse } from '../canvas/collapse.ts';

export function FoldButton({ id, folded, what }: { id: string; folded: boolean; what: 'body' | 'arms' }) {
  const { toggle } = useCollapse();
  return (
    <button
      type="button"
      className="wf-fold nodrag"
      aria-expanded={!folded}
      aria-label={`${folded ? 'Expand' : 'Collapse'} ${id}`}
      title={folded ? `Show the ${what}` : `Fold the ${what} away`}
      onClick={(event) => {
        event.stopPropagation();
        toggle(id);
      }}
    >
      {folded ? '▸' : '▾'}
    </button>
  );
}
