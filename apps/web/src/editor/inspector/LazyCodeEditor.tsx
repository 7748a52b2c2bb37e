/** CodeMirror is loaded on first use (its own chunk); until then, and if it fails to load, a monospace textarea. */
import { Component, lazy, type ReactNode, Suspense, useId } from 'react';

const CodeEditor = lazy(() => import('./CodeEditor.tsx').then((module) => ({ default: module.CodeEditor })));

interface Props {
  label: string;
  value: string;
  onChange(value: string): void;
}

function PlainCode({ label, value, onChange }: Props) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="textarea mono"
        aria-label={label}
        spellCheck={false}
        rows={8}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
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

export function LazyCodeEditor(props: Props) {
  const plain = <PlainCode {...props} />;
  return (
    <Fallback fallback={plain}>
      <Suspense fallback={plain}>
        <CodeEditor {...props} />
      </Suspense>
    </Fallback>
  );
}
