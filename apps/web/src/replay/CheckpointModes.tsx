/**
 * Per checkpoint of the source run: as the preview says (recorded before the point, live from
 * it), live (execute again), or pinned (answered with a value typed here, starting from the
 * recorded one).
 */
import { type Checkpoint, type CheckpointMode, modeOf, pinTextOf, type ReplayForm } from './replay-form.ts';
import type { ReplayPreview } from './use-replay-preview.ts';

function outcome(id: string, preview: ReplayPreview | null): string {
  if (!preview) return '';
  if (preview.pinned.includes(id)) return 'pinned';
  if (preview.reused.includes(id)) return 'recorded';
  const reason = preview.notReused.find((item) => item.checkpoint === id);
  if (reason) return 'runs again';
  return preview.rerun.includes(id) ? 'runs again' : '';
}

export function CheckpointModes({
  checkpoints,
  form,
  preview,
  onMode,
  onPin,
}: {
  checkpoints: Checkpoint[];
  form: ReplayForm;
  preview: ReplayPreview | null;
  onMode(checkpoint: string, mode: CheckpointMode): void;
  onPin(checkpoint: string, text: string): void;
}) {
  if (checkpoints.length === 0) return <p className="muted small">This run recorded no calls to reuse or pin.</p>;
  return (
    <table className="checkpoints">
      <thead>
        <tr>
          <th scope="col">Checkpoint</th>
          <th scope="col">Answer with</th>
          <th scope="col">Preview</th>
        </tr>
      </thead>
      <tbody>
        {checkpoints.map((checkpoint) => {
          const mode = modeOf(form, checkpoint.id);
          const text = pinTextOf(form, checkpoint.id) ?? '';
          return (
            <tr key={checkpoint.id}>
              <td>
                <span className="mono">{checkpoint.id}</span> <span className="muted small">{checkpoint.stepType}</span>
                {mode === 'pinned' ? (
                  <textarea
                    className="textarea mono"
                    aria-label={`Pinned value of ${checkpoint.id}`}
                    rows={Math.min(8, Math.max(2, text.split('\n').length))}
                    spellCheck={false}
                    value={text}
                    onChange={(event) => onPin(checkpoint.id, event.target.value)}
                  />
                ) : null}
              </td>
              <td>
                <select
                  className="input"
                  aria-label={`Answer for ${checkpoint.id}`}
                  value={mode}
                  onChange={(event) => onMode(checkpoint.id, event.target.value as CheckpointMode)}
                >
                  <option value="default">as planned</option>
                  <option value="live">live (run again)</option>
                  <option value="pinned">pinned value</option>
                </select>
              </td>
              <td className="small" data-testid={`checkpoint-outcome-${checkpoint.id}`}>
                {outcome(checkpoint.id, preview)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
