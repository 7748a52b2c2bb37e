/** Validation problems are values: each names the step and the JSON path it is about. */
export interface ValidationIssue {
  /** The innermost step the problem is in; null for flow-level problems. */
  stepId: string | null;
  /** JSON path into the flow document, e.g. "steps[2].cases[0].steps[1].prompt". */
  path: string;
  message: string;
}

export type JsonPath = readonly (string | number)[];

export function formatPath(path: JsonPath): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) text += text === '' ? key : `.${key}`;
    else text += `[${JSON.stringify(key)}]`;
  }
  return text === '' ? '(flow)' : text;
}

/** The id of the innermost step object on `path` inside the raw document. */
export function stepIdAt(doc: unknown, path: JsonPath): string | null {
  let node: unknown = doc;
  let stepId: string | null = null;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) break;
    node = (node as Record<string | number, unknown>)[key];
    if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
      const { id, type } = node as { id?: unknown; type?: unknown };
      if (typeof id === 'string' && typeof type === 'string') stepId = id;
    }
  }
  return stepId;
}
