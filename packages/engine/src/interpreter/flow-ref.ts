import type { FlowRef } from './host.ts';

/** "support-triage" → latest version; "support-triage@3" → version 3. */
export function parseFlowRef(text: string): FlowRef | undefined {
  const match = /^([a-z0-9][a-z0-9_-]{0,63})(?:@([1-9][0-9]{0,8}))?$/.exec(text);
  if (!match) return undefined;
  return match[2] === undefined ? { id: match[1]! } : { id: match[1]!, version: Number(match[2]) };
}

export function formatFlowRef(ref: FlowRef): string {
  return ref.version === undefined ? ref.id : `${ref.id}@${ref.version}`;
}
