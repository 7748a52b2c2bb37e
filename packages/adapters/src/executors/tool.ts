/** The `tool` call: a TypeScript tool the host application registered by name. */
import { type Json, NonRetryableError, type ToolCallInput, toJson } from '@weft/engine';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

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
  const result = await tool.execute(input.args ?? null, { signal: ctx.signal });
  try {
    return toJson(result);
  } catch (error) {
    throw new NonRetryableError(`tool "${name}" returned a value that is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
