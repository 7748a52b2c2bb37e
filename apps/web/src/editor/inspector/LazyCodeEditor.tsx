/** CodeMirror is loaded on first use (its own chunk); until then, and if it fails to load, a monospace textarea. */
import { lazy, useId } from 'react';
import { LoadOrFallback } from '../../components/LoadOrFallback.tsx';

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

export function LazyCodeEditor(props: Props) {
  const plain = <PlainCode {...props} />;
  return (
    <LoadOrFallback fallback={plain}>
      <CodeEditor {...props} />
    </LoadOrFallback>
  );
}
