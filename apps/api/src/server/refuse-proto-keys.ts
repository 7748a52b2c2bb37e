/**
 * `__proto__` keys are refused in every request, not only in flow documents. The request's JSON
 * is parsed with `JSON.parse`, which keeps `"__proto__"` as an own key; what reads it afterwards
 * (zod objects and records, spreads, `Object.assign`) drops it silently or makes it the object's
 * prototype. So run input, pins, approval comments, test-case options… are checked here, on the
 * raw input, before any schema sees it, and refused with the path of the key. Iterative (the
 * engine's `checkJsonShape`): a deep input cannot overflow the stack here; depth itself is each
 * procedure's own limit.
 */
import { TRPCError } from '@trpc/server';
import { checkJsonShape, formatLongPath } from '@weft/engine';

/** The refusal for a raw request input holding a `__proto__` key, or undefined when it holds none. */
export function protoKeyProblem(rawInput: unknown): string | undefined {
  const issue = checkJsonShape(withoutFlowDocument(rawInput), Number.POSITIVE_INFINITY, { refuseProtoKeys: true });
  if (issue === undefined) return undefined;
  // The path from the procedure's input: `input.ticket.__proto__` is runs.start's run input.
  return `${formatLongPath(issue.path)}: "__proto__" keys are not allowed`;
}

/** Throws BAD_REQUEST naming the key's path when the raw input holds a `__proto__` key. */
export async function refuseProtoKeys(getRawInput: () => Promise<unknown>): Promise<void> {
  const problem = protoKeyProblem(await getRawInput());
  if (problem !== undefined) throw new TRPCError({ code: 'BAD_REQUEST', message: problem });
}

/**
 * A flow document (`doc`, as flows.create / save / validate take it) is left to `validateFlow`,
 * which refuses the same keys with the step and field they are in (`flowErrors`).
 */
function withoutFlowDocument(rawInput: unknown): unknown {
  if (typeof rawInput !== 'object' || rawInput === null || Array.isArray(rawInput) || !Object.hasOwn(rawInput, 'doc'))
    return rawInput;
  const { doc: _flowDocument, ...rest } = rawInput as Record<string, unknown>;
  return rest;
}
