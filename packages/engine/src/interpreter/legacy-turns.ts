/**
 * Promise turns and Temporal replay. On Temporal, concurrent branches whose calls settle in one
 * workflow activation issue their next commands in the order their promise chains reach the
 * host, and a recorded history replays only in that order (turns.test.ts). A tool call used to
 * pass through two async functions (the `tool` step's `execute` and `callTool`) and a one-step
 * list through one more `then`; it no longer does: in Temporal's workflow sandbox every promise
 * created records a source-mapped stack trace (about three quarters of a 256-wide fan-out's first
 * workflow task), and those five were ~40% of the promises a branch made there. A workflow
 * started before that (WeftFlowArgs without `turns`) is interpreted with `legacyTurns`, and these
 * put the turns back exactly where they were.
 */
import type { InterpretOptions } from './context.ts';

/** Runs `call` as the async function it used to be in legacy mode, else directly (a throw still rejects). */
export function asRecordedHop<T>(options: InterpretOptions, call: () => Promise<T>): Promise<T> {
  if (options.legacyTurns) return asAsyncFunction(call);
  try {
    return call();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `calling` handed on as an async function returning it hands it on in legacy mode, else as is:
 * for a call already made that cannot have thrown (the promise is in hand), without a closure.
 */
export function asRecordedReturn<T>(options: InterpretOptions, calling: Promise<T>): Promise<T> {
  return options.legacyTurns ? asAsyncReturn(calling) : calling;
}

/** Exactly `async function f() { return call(); }`, turns and all: what the legacy code was. */
async function asAsyncFunction<T>(call: () => Promise<T>): Promise<T> {
  return call();
}

/** Exactly `async function f() { return calling; }`. */
async function asAsyncReturn<T>(calling: Promise<T>): Promise<T> {
  return calling;
}
