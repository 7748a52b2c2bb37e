/**
 * Validated flows by document text. An application starts the same flow document again and
 * again; validating a 1,000-step document costs about 10 ms, more than executing its steps in
 * memory, so each document is validated once and the frozen result reused. Only a flow that
 * names no other flow is kept: a spawn's or flow tool's target may change or vanish between
 * two runs, so such a flow is checked against the flows of the day every time.
 */
import { type Flow, namesOtherFlows } from '@weft/engine';

/** Enough for the flows an application runs; each entry holds its document text twice at most. */
const MAX_FLOWS = 64;
/** A larger document is validated every time rather than held. */
const MAX_TEXT_CHARS = 2 * 1024 * 1024;

const flows = new Map<string, Flow>();

/**
 * The key of a document under the host tools in scope (they decide which tool names are
 * known), or undefined when it has no JSON text (a cycle, a BigInt): validation then says why.
 */
export function flowCacheKey(doc: unknown, hostTools: readonly string[]): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(doc);
  } catch {
    return undefined;
  }
  if (text === undefined || text.length > MAX_TEXT_CHARS) return undefined;
  return `${hostTools.join('\n')}\u0000${text}`;
}

export function cachedFlow(key: string | undefined): Flow | undefined {
  if (key === undefined) return undefined;
  const flow = flows.get(key);
  if (flow) {
    // Least recently used first out: move it to the end.
    flows.delete(key);
    flows.set(key, flow);
  }
  return flow;
}

/** Keeps a valid flow for its key unless it names other flows; returns it frozen either way. */
export function rememberFlow(key: string | undefined, flow: Flow): Flow {
  // Shared by every run of the document from now on: nothing may change it under another run.
  deepFreeze(flow);
  if (key === undefined || namesOtherFlows(flow)) return flow;
  flows.set(key, flow);
  if (flows.size > MAX_FLOWS) flows.delete(flows.keys().next().value as string);
  return flow;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
