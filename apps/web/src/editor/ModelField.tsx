/** The model of an `llm` step, with the server's providers offered (`mock:` marked as mock). */
import type { Json } from '@weft/engine';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import { useModels } from './use-models.ts';

export function ModelField({ nodeId, config }: { nodeId: string; config: Record<string, Json> }) {
  const store = useEditorStoreApi();
  const models = useModels();
  const value = typeof config.model === 'string' ? config.model : '';
  return (
    <div className="field">
      <label htmlFor={`model-${nodeId}`}>
        Model {value.startsWith('mock:') ? <span className="mock-pill">mock</span> : null}
      </label>
      <input
        id={`model-${nodeId}`}
        className="input mono"
        list={`models-${nodeId}`}
        aria-label={`Model of ${nodeId}`}
        value={value}
        onChange={(event) => store.getState().setConfig(nodeId, { ...config, model: event.target.value })}
      />
      <datalist id={`models-${nodeId}`}>
        <option value="mock:echo">mock — echoes the last user message</option>
        {models
          .filter((model) => model.configured && model.id !== 'mock')
          .map((model) => (
            <option key={model.id} value={`${model.id}:`}>
              {model.label}
            </option>
          ))}
      </datalist>
      <p className="muted small">
        {models
          .map(
            (model) =>
              `${model.id === 'mock' ? 'mock (offline)' : model.label}${model.configured ? '' : ' — not configured'}`,
          )
          .join(' · ')}
      </p>
    </div>
  );
}
