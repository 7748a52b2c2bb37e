/**
 * A step's config as JSON: edits apply as soon as they parse; a parse error is shown and the
 * last good config stays. The "JSON" tab of the inspector, for whatever the form cannot express.
 */
import type { Json } from '@weft/engine';
import { useRef, useState } from 'react';
import { useEditorStoreApi } from '../store/editor-hooks.ts';

export function ConfigEditor({ nodeId, config }: { nodeId: string; config: Record<string, Json> }) {
  const store = useEditorStoreApi();
  const [text, setText] = useState(() => JSON.stringify(config, null, 2));
  const [error, setError] = useState<string | null>(null);
  // The config this textarea last showed or applied; another change (e.g. the model field) resets it.
  const shown = useRef(config);
  if (config !== shown.current) {
    shown.current = config;
    setText(JSON.stringify(config, null, 2));
    setError(null);
  }
  const onChange = (value: string) => {
    setText(value);
    try {
      const parsed = JSON.parse(value) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('the config must be a JSON object');
      setError(null);
      shown.current = parsed as Record<string, Json>;
      store.getState().setConfig(nodeId, shown.current);
    } catch (cause) {
      setError((cause as Error).message);
    }
  };
  return (
    <div className="field">
      <label htmlFor={`config-${nodeId}`}>Config (JSON)</label>
      <textarea
        id={`config-${nodeId}`}
        className={`textarea mono${error ? ' invalid' : ''}`}
        aria-label={`Config of ${nodeId}`}
        aria-invalid={error !== null}
        spellCheck={false}
        rows={12}
        value={text}
        onChange={(event) => onChange(event.target.value)}
      />
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
