/** Two values side by side with what differs marked: model text by words, anything else as JSON by lines. */
import { jsonSides, modelText, type Segment, textSides } from './diff-sides.ts';

function Column({ label, segments }: { label: string; segments: Segment[] }) {
  return (
    <div className="diff-column">
      <div className="diff-label">{label}</div>
      <pre className="pre diff-pre">
        {segments.map((segment, index) =>
          segment.kind === 'same' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
            <span key={index}>{segment.text}</span>
          ) : segment.kind === 'removed' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
            <del key={index} className="diff-removed">
              {segment.text}
            </del>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
            <ins key={index} className="diff-added">
              {segment.text}
            </ins>
          ),
        )}
      </pre>
    </div>
  );
}

export function SideBySide({
  title,
  a,
  b,
  labels,
  text = false,
}: {
  title: string;
  a: unknown;
  b: unknown;
  labels: [string, string];
  /** Compare model text word by word when both sides have it. */
  text?: boolean;
}) {
  const textA = text ? modelText(a) : null;
  const textB = text ? modelText(b) : null;
  const byText = textA !== null && textB !== null;
  const sides = byText ? textSides(textA, textB) : jsonSides(a ?? null, b ?? null);
  return (
    <figure className="side-by-side" aria-label={`${title}: ${sides.same ? 'same' : 'different'}`}>
      <figcaption className="diff-title">
        {title}
        {byText ? <span className="muted"> (model text)</span> : null}
        {sides.same ? <span className="muted"> — same</span> : null}
      </figcaption>
      {sides.same ? null : (
        <div className="diff-columns">
          <Column label={labels[0]} segments={sides.left} />
          <Column label={labels[1]} segments={sides.right} />
        </div>
      )}
    </figure>
  );
}
