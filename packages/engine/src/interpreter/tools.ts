/**
 * Calling a named tool, from a `tool` step or an agent turn. A flow's own tools become the
 * matching checkpointed call (`source` → code sandbox, `http` → http, `flow` → child run);
 * anything else is a tool the host application registered.
 */
import { NonRetryableError } from '../errors.ts';
import { resolveValue } from '../expr/index.ts';
import type { FlowTool } from '../ir/flow.ts';
import { type Json, type JsonObject, ownEntry } from '../json.ts';
import type { StepContext } from './context.ts';
import { parseFlowRef } from './flow-ref.ts';
import type { HttpCallInput, ToolSpec } from './host.ts';
import { asRecordedHop } from './legacy-turns.ts';

export function toolSpec(name: string, ctx: StepContext): ToolSpec {
  const own = ownEntry(ctx.flow.tools, name);
  if (own) return { name, description: own.description, parameters: own.parameters as JsonObject };
  const registered = ownEntry(ctx.options.hostTools, name);
  if (registered) return { name, ...registered };
  throw new NonRetryableError(`unknown tool '${name}'`);
}

export function knowsTool(name: string, ctx: StepContext): boolean {
  return ownEntry(ctx.flow.tools, name) !== undefined || ownEntry(ctx.options.hostTools, name) !== undefined;
}

/** Runs tool `name` as the checkpointed step `id`. */
export function callTool(name: string, args: Json, id: string, ctx: StepContext): Promise<Json> {
  return asRecordedHop(ctx.options, () => startToolCall(name, args, id, ctx));
}

function startToolCall(name: string, args: Json, id: string, ctx: StepContext): Promise<Json> {
  const own = ownEntry(ctx.flow.tools, name);
  if (own === undefined) {
    if (!knowsTool(name, ctx)) throw new NonRetryableError(`unknown tool '${name}'`);
    return ctx.host.run(id, { kind: 'tool', input: { tool: name, args } }, ctx.policy);
  }
  return callFlowTool(own, args, id, ctx);
}

function callFlowTool(tool: FlowTool, args: Json, id: string, ctx: StepContext): Promise<Json> {
  if (tool.source !== undefined) {
    return ctx.host.run(id, { kind: 'code', input: { source: tool.source, args, input: null, steps: {} } }, ctx.policy);
  }
  if (tool.http !== undefined) {
    // A tool definition is IR even in a code-first flow. Its templates read the call's `args`
    // and the run's `input` (an API base URL, say) — not `steps`: a tool may be called from
    // anywhere, so which steps have run is unknowable where it is defined.
    const scope = { input: ctx.scope.input, steps: {}, args };
    const headers: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(tool.http.headers ?? {}))
      headers[key] = String(resolveValue(value, scope));
    const request: HttpCallInput = {
      method: tool.http.method ?? 'GET',
      url: String(resolveValue(tool.http.url, scope)),
      headers,
    };
    if (tool.http.body !== undefined) request.body = resolveValue(tool.http.body, scope);
    if (tool.http.idempotencyKey === false) request.idempotencyKey = false;
    return ctx.host.run(id, { kind: 'http', input: request }, ctx.policy);
  }
  const ref = tool.flow === undefined ? undefined : parseFlowRef(tool.flow);
  if (ref === undefined) throw new NonRetryableError('a tool needs one of source, http or flow');
  return ctx.host.spawn(id, ref, args);
}
