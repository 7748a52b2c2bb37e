/** The flow a new flow starts as: one `llm` step on the offline mock model. */
import type { Json } from '@weft/engine';

/** A flow id (slug) from a human name: `Support triage!` → `support-triage`. */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

export function starterFlow(id: string, name: string): Record<string, Json> {
  return {
    irVersion: 1,
    id,
    name: name || id,
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    steps: [{ id: 'reply', type: 'llm', model: 'mock:echo', prompt: '{{ input.text }}' }],
  };
}
