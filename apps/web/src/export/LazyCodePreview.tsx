/** CodeMirror is loaded on first use (its own chunk); until then, and if it fails to load, plain text. */
import { lazy } from 'react';
import { LoadOrFallback } from '../components/LoadOrFallback.tsx';

const CodePreview = lazy(() => import('./CodePreview.tsx').then((module) => ({ default: module.CodePreview })));

interface Props {
  label: string;
  value: string;
}

function PlainCode({ label, value }: Props) {
  return (
    <textarea
      className="code-preview-plain mono"
      aria-label={label}
      data-testid="code-preview"
      readOnly
      spellCheck={false}
      value={value}
    />
  );
}

export function LazyCodePreview(props: Props) {
  const plain = <PlainCode {...props} />;
  return (
    <LoadOrFallback fallback={plain}>
      <CodePreview {...props} />
    </LoadOrFallback>
  );
}
