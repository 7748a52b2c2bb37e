/**
 * The flow itself, shown when no node is selected: name, description, the input JSON Schema,
 * the output expression and the flow's tools (a code tool's source in the code editor).
 * The store has no meta action, so edits replace `graph.meta` through the store API (and mark the flow dirty).
 */
import type { GraphMeta, Json } from '@weft/engine';
import { useId } from 'react';
import { useEditor, useEditorStoreApi } from '../../store/editor-hooks.ts';
import { ValueField } from './FieldWidget.tsx';
import { JsonSchemaEditor } from './JsonSchemaEditor.tsx';
import { LazyCodeEditor as CodeEditor } from './LazyCodeEditor.tsx';
import { useScopeSuggestions } from './use-scope.ts';

type Meta = GraphMeta;

export function FlowInspector() {
  const id = useId();
  const store = useEditorStoreApi();
  const meta = useEditor((state) => state.graph.meta);
  const suggestions = useScopeSuggestions(null);

  const setMeta = <K extends keyof Meta>(key: K, value: Meta[K] | undefined) => {
    const { graph } = store.getState();
    const { [key]: _old, ...rest } = graph.meta;
    const next = (value === undefined ? rest : { ...rest, [key]: value }) as Meta;
    store.setState({ graph: { ...graph, meta: next }, dirty: true });
  };
  const tools = Object.entries(meta.tools ?? {});
  const setTool = (name: string, tool: Record<string, Json>) =>
    setMeta('tools', { ...(meta.tools ?? {}), [name]: tool });

  return (
    <form className="step-form" aria-label="Flow settings" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name *</label>
        <input
          id={`${id}-name`}
          className="input"
          aria-label="Flow name"
          value={meta.name}
          onChange={(event) => setMeta('name', event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea
          id={`${id}-description`}
          className="textarea"
          aria-label="Flow description"
          rows={2}
          value={meta.description ?? ''}
          onChange={(event) => setMeta('description', event.target.value === '' ? undefined : event.target.value)}
        />
      </div>
      <JsonSchemaEditor label="Input schema" value={meta.input} onChange={(value) => setMeta('input', value)} />
      <ValueField
        label="Output"
        value={meta.output}
        onChange={(value) => setMeta('output', value)}
        suggestions={suggestions}
      />
      <p className="muted small">Empty output: the last step's output.</p>
      {tools.length > 0 ? (
        <fieldset className="form-group">
          <legend>Tools</legend>
          {tools.map(([name, raw]) => {
            const tool = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
            return (
              <div key={name} className="schema-prop">
                <p className="mono small">{name}</p>
                <div className="field">
                  <label htmlFor={`${id}-tool-${name}`}>Description</label>
                  <input
                    id={`${id}-tool-${name}`}
                    className="input"
                    aria-label={`Tool ${name} description`}
                    value={typeof tool.description === 'string' ? tool.description : ''}
                    onChange={(event) => setTool(name, { ...tool, description: event.target.value })}
                  />
                </div>
                {typeof tool.source === 'string' ? (
                  <CodeEditor
                    label={`Tool ${name} source (JavaScript, receives args)`}
                    value={tool.source}
                    onChange={(source) => setTool(name, { ...tool, source })}
                  />
                ) : null}
                <JsonSchemaEditor
                  label={`Tool ${name} parameters`}
                  value={tool.parameters}
                  onChange={(parameters) => setTool(name, { ...tool, parameters: parameters ?? {} })}
                />
              </div>
            );
          })}
        </fieldset>
      ) : null}
    </form>
  );
}
