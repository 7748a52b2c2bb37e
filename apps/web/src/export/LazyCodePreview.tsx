/** CodeMirror is loaded on first use (its own chunk); until then, and if it fails to load, plain text. */
import { Component, lazy, type ReactNode, Suspense } from 'react';

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

class Fallback extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

export function LazyCodePreview(props: Props) {
  const plain = <PlainCode {...props} />;
  return (
    <Fallback fallback={plain}>
      <Suspense fallback={plain}>
        <CodePreview {...props} />
      </Suspense>
    </Fallback>
  );
}
