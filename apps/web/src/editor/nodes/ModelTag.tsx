import { lineClass } from './clipping.ts';

/** A model name; `mock:` models are marked so nobody mistakes a demo for a real model. */
export function ModelTag({ model }: { model: string }) {
  return (
    <div className={lineClass('wf-model mono', 'model', model)} title={model}>
      {model}
      {model.startsWith('mock:') ? <span className="mock-pill">mock</span> : null}
    </div>
  );
}
