/** A value shown as formatted JSON with "Copy as JSON" — every value the run view shows can be copied. */
import type { Json } from '@weft/engine';
import { useState } from 'react';

export function CopyJson({ value, label }: { value: unknown; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  return (
    <button
      type="button"
      className="button ghost small copy-json"
      aria-label={`Copy ${label} as JSON`}
      title="Copy as JSON"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(JSON.stringify(value ?? null, null, 2));
          setCopied('yes');
        } catch {
          setCopied('failed');
        }
        setTimeout(() => setCopied(null), 1500);
      }}
    >
      {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy JSON'}
    </button>
  );
}

export function JsonValue({
  label,
  value,
  className = '',
}: {
  label: string;
  value: Json | unknown;
  className?: string;
}) {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null, null, 2);
  return (
    <figure className="json-value" aria-label={label}>
      <figcaption className="json-value-head small">
        <span className="muted">{label}</span>
        <CopyJson value={value} label={label} />
      </figcaption>
      <pre className={`pre ${className}`}>{text}</pre>
    </figure>
  );
}
