/** The form of one step node, generated from its step type's zod schema (schema-fields.ts). */
import type { Json, StepType } from '@weft/engine';
import { useMemo } from 'react';
import { useEditor, useEditorStoreApi } from '../../store/editor-hooks.ts';
import { FieldWidget } from './FieldWidget.tsx';
import { stepFields } from './schema-fields.ts';
import { useScopeSuggestions } from './use-scope.ts';

export function StepForm({
  nodeId,
  stepType,
  config,
}: {
  nodeId: string;
  stepType: StepType;
  config: Record<string, Json>;
}) {
  const store = useEditorStoreApi();
  const fields = useMemo(() => stepFields(stepType), [stepType]);
  const suggestions = useScopeSuggestions(nodeId);
  const tools = useEditor((state) => state.graph.meta.tools);
  const toolNames = useMemo(() => Object.keys(tools ?? {}), [tools]);

  const set = (name: string, value: Json | undefined) => {
    // Read the latest config: two fields can change in one event (e.g. completion + blur).
    const node = store.getState().graph.nodes.find((candidate) => candidate.id === nodeId);
    const { [name]: _old, ...rest } = node?.config ?? config;
    store.getState().setConfig(nodeId, value === undefined ? rest : { ...rest, [name]: value });
  };

  const widget = (spec: (typeof fields)[number]) => (
    <FieldWidget
      key={spec.name}
      spec={spec}
      value={config[spec.name]}
      onChange={(value) => set(spec.name, value)}
      suggestions={suggestions}
      listOptions={spec.name === 'tools' ? toolNames : undefined}
    />
  );
  const main = fields.filter((spec) => !spec.advanced);
  const advanced = fields.filter((spec) => spec.advanced);
  const advancedSet = advanced.some((spec) => config[spec.name] !== undefined);
  return (
    <form className="step-form" aria-label={`Settings of ${nodeId}`} onSubmit={(event) => event.preventDefault()}>
      {main.map(widget)}
      {advanced.length > 0 ? (
        <details className="form-group" open={advancedSet}>
          <summary>Advanced (retry, timeout)</summary>
          {advanced.map(widget)}
        </details>
      ) : null}
    </form>
  );
}
