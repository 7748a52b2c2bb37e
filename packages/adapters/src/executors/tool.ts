/** The `tool` call: a TypeScript tool the host application registered by name. */
import { type Json, NonRetryableError, type ToolCallInput, type ToolSpec, toJson } from '@weft/engine';
import { idempotencyKey } from './idempotency.ts';
import type { ExecutorContext, ExecutorDeps, HostTool } from './types.ts';

export async function executeTool(input: ToolCallInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  const name = input.tool;
  const tool = Object.hasOwn(deps.tools, name) ? deps.tools[name] : undefined;
  if (!tool) {
    const known = Object.keys(deps.tools).sort();
    throw new NonRetryableError(
      `unknown tool "${name}"; registered tools: ${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : '(none)'}`,
    );
  }
  // Errors the tool throws propagate unchanged: the tool decides what is retryable.
  const result = await tool.execute(input.args ?? null, { signal: ctx.signal, idempotencyKey: idempotencyKey(ctx) });
  try {
    return toJson(result);
  } catch (error) {
    throw new NonRetryableError(`tool "${name}" returned a value that is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * What the interpreter is told of host tools (an agent offers them to its model): their
 * descriptions and parameters, never their code, which runs only where the executors do.
 */
export function hostToolSpecs(tools: Readonly<Record<string, HostTool>>): Record<string, Omit<ToolSpec, 'name'>> {
  const specs: Record<string, Omit<ToolSpec, 'name'>> = Object.create(null);
  for (const [name, tool] of Object.entries(tools))
    specs[name] = { description: tool.description, parameters: tool.parameters };
  return specs;
}
