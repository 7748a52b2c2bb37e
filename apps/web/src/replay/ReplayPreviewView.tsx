/**
 * The preview of a replay, shown before it starts: what is reused (and the tokens that saves),
 * what is pinned, which steps run again, the checkpoints that cannot be reused and why, and —
 * named one by one — the side effects that would fire again, which the user confirms with the
 * checkbox Start requires.
 */
import { usd } from '../compare/diff-sides.ts';
import type { PreviewState, ReplayPreview } from './use-replay-preview.ts';

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function ReplayPreviewView({
  state,
  confirmed,
  onConfirm,
}: {
  state: PreviewState;
  confirmed: boolean;
  onConfirm(confirmed: boolean): void;
}) {
  const preview: ReplayPreview | null =
    state.status === 'ready' ? state.preview : state.status === 'loading' ? state.last : null;
  return (
    <section className="replay-preview" aria-label="Replay preview" aria-busy={state.status === 'loading'}>
      <h3 className="panel-subtitle">
        Preview{state.status === 'loading' ? <span className="muted small"> · updating…</span> : null}
      </h3>
      {state.status === 'error' ? (
        <p className="field-error" role="alert">
          Could not preview the replay: {state.error}
        </p>
      ) : null}
      {state.status === 'idle' ? <p className="muted small">Fix the fields above to see what would run.</p> : null}
      {preview ? (
        <div className={state.status === 'loading' ? 'stale' : undefined}>
          <p data-testid="replay-reused">
            <strong>{plural(preview.reused.length, 'checkpoint')} reused</strong>
            {preview.tokensSaved.input + preview.tokensSaved.output > 0 ? (
              <>
                {' '}
                · saves {preview.tokensSaved.input + preview.tokensSaved.output} tokens ({preview.tokensSaved.input} in,{' '}
                {preview.tokensSaved.output} out)
              </>
            ) : (
              ' · saves no tokens'
            )}
            {preview.pinned.length > 0 ? <> · {plural(preview.pinned.length, 'pinned value')}</> : null}
          </p>
          {preview.costSaved.usd > 0 || preview.costSaved.unpriced.length > 0 ? (
            <p className="small" data-testid="replay-cost">
              {preview.costSaved.usd > 0 ? <>{usd(preview.costSaved.usd)} not spent again</> : null}
              {preview.costSaved.unpriced.length > 0 ? (
                <span className="muted">
                  {preview.costSaved.usd > 0 ? ' · ' : ''}no price known for {preview.costSaved.unpriced.join(', ')}
                </span>
              ) : null}
            </p>
          ) : null}
          {preview.reused.length > 0 ? (
            <details>
              <summary className="small">Reused checkpoints</summary>
              <ul className="mono small">
                {preview.reused.map((id) => (
                  <li key={id}>{id}</li>
                ))}
              </ul>
            </details>
          ) : null}
          <p className="small">
            <strong>Runs again:</strong>{' '}
            {preview.rerun.length === 0 ? (
              <span className="muted">nothing</span>
            ) : (
              <span className="mono" data-testid="replay-rerun">
                {preview.rerun.join(', ')}
              </span>
            )}
          </p>
          {preview.notReused.length > 0 ? (
            <div className="small">
              <strong>Not reused:</strong>
              <ul data-testid="replay-not-reused">
                {preview.notReused.map((item) => (
                  <li key={item.checkpoint}>
                    <span className="mono">{item.checkpoint}</span> — {item.reason}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {preview.sideEffects.length > 0 ? (
            <fieldset className="side-effects" aria-label="Side effects that fire again">
              <legend>⚠ {plural(preview.sideEffects.length, 'step')} with side effects will run again</legend>
              <ul>
                {preview.sideEffects.map((effect) => (
                  <li key={effect.stepId}>
                    <span className="mono">{effect.stepId}</span> <span className="muted">({effect.stepType})</span>
                  </li>
                ))}
              </ul>
              <label className="choice">
                <input
                  type="checkbox"
                  checked={confirmed}
                  disabled={state.status !== 'ready'}
                  onChange={(event) => onConfirm(event.target.checked)}
                />{' '}
                Run these side effects again
              </label>
            </fieldset>
          ) : (
            <p className="muted small">No side effects fire again.</p>
          )}
        </div>
      ) : null}
    </section>
  );
}
