/**
 * The executor registry a test case runs with: every call is refused. A case answers calls from
 * its recordings, and a recording answers only a call made with the same input (its hash, see
 * backends/seed.ts), so a call that reaches an executor is one the flow or its input changed.
 * Refusing it — rather than calling a model, a server or the sandbox — keeps a test offline and
 * makes the change its failure. Non-retryable: asking again cannot help.
 */
import { NonRetryableError } from '@weft/engine';
import type { ExecutorRegistry } from '../executors/types.ts';

/** A call the case has no recorded result for. */
export interface RefusedCall {
  stepId: string;
  kind: string;
}

const WHAT: Record<string, string> = {
  'model-turn': 'a model call',
  tool: 'a tool call',
  code: 'a code step',
  http: 'an http call',
};

export class NoRecordedResultError extends NonRetryableError {
  readonly stepId: string;
  readonly kind: string;
  constructor(call: RefusedCall) {
    super(
      `the test case has no recorded result for '${call.stepId}' with this input (${describeKind(call.kind)}): the flow or its input changed since the case was saved`,
    );
    this.stepId = call.stepId;
    this.kind = call.kind;
  }
}

/** A registry that refuses every call, telling `onRefused` which (the first is the difference). */
export function offlineExecutors(onRefused: (call: RefusedCall) => void = () => {}): ExecutorRegistry {
  return {
    async execute(call, ctx) {
      const kind = typeof (call as { kind?: unknown } | null)?.kind === 'string' ? call.kind : 'unknown';
      const refused = { stepId: ctx.stepId, kind };
      onRefused(refused);
      throw new NoRecordedResultError(refused);
    },
  };
}

export function describeKind(kind: string): string {
  return Object.hasOwn(WHAT, kind) ? (WHAT[kind] as string) : `a '${kind}' call`;
}
