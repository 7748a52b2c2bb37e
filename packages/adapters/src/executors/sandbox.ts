/**
 * The `code` sandbox: QuickJS compiled to WebAssembly. Author code never touches Node's own
 * engine (no eval, new Function or node:vm), has no I/O, and is bounded in time, memory and
 * stack. Inputs go in as JSON text parsed inside the sandbox; the result comes out as JSON
 * text parsed here, so nothing but plain data crosses the boundary.
 */
import { type Json, NonRetryableError } from '@weft/engine';
import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
  RELEASE_SYNC,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten';

export interface SandboxLimits {
  /** Wall-clock budget for compiling and running, default 1000 ms. */
  timeoutMs?: number;
  /** Heap limit of the QuickJS runtime, default 32 MiB. */
  memoryBytes?: number;
  /** How errors name the code ("code step", "tool \"lookup\""). */
  label?: string;
}

export const DEFAULT_SANDBOX_TIMEOUT_MS = 1000;
export const DEFAULT_SANDBOX_MEMORY_BYTES = 32 * 1024 * 1024;
// Without an explicit limit, runaway recursion overflows the host's stack instead of
// QuickJS's, which escapes as a host RangeError and leaves the runtime undisposable
// (quickjs-emscripten#60, #269). 256 KiB gives a catchable InternalError instead.
const MAX_STACK_BYTES = 256 * 1024;
const FILE_NAME = 'code.js';

// Called with the author's function and the JSON text of its arguments. Returns a tagged
// string so the host reads one primitive back: "J<json>", "P" (a Promise/thenable),
// or "X<reason>" (not JSON).
const RUNNER_SOURCE = `(function (fn, argsJson) {
  var result = fn.apply(undefined, JSON.parse(argsJson));
  if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function') return 'P';
  if (typeof result === 'function' || typeof result === 'symbol' || typeof result === 'bigint') return 'X' + 'a ' + typeof result;
  var text;
  try { text = JSON.stringify(result); } catch (e) { return 'X' + 'a value JSON cannot encode (' + (e && e.message ? e.message : String(e)) + ')'; }
  return 'J' + (text === undefined ? 'null' : text);
})`;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

let modulePromise: Promise<QuickJSWASMModule> | undefined;

// One WebAssembly module for the whole process (loading costs ~10 ms); every call gets its
// own runtime and context inside it, always disposed.
function loadModule(): Promise<QuickJSWASMModule> {
  modulePromise ??= newQuickJSWASMModule(RELEASE_SYNC).catch((error: unknown) => {
    modulePromise = undefined;
    throw error;
  });
  return modulePromise;
}

// A WebAssembly abort (a QuickJS assertion, e.g. quickjs-emscripten#257 after an out-of-memory)
// leaves the module unusable. Drop it so the next call starts from a fresh one.
function discardModule(module: QuickJSWASMModule): void {
  void modulePromise?.then((current) => {
    if (current === module) modulePromise = undefined;
  });
}

/**
 * Runs `source` as the body of a function whose parameters are the keys of `globals`, called
 * with their values, and returns what it returns (undefined → null). Every failure is a
 * NonRetryableError: running the same code again gives the same result.
 */
export async function runInSandbox(
  source: string,
  globals: Record<string, Json>,
  limits: SandboxLimits = {},
): Promise<Json> {
  const label = limits.label ?? 'code step';
  const timeoutMs = limits.timeoutMs ?? DEFAULT_SANDBOX_TIMEOUT_MS;
  const memoryBytes = limits.memoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES;
  if (typeof source !== 'string') throw new NonRetryableError(`${label}: source must be a string`);
  const names = Object.keys(globals);
  for (const name of names) {
    if (!IDENTIFIER.test(name)) throw new NonRetryableError(`${label}: "${name}" is not a valid parameter name`);
  }
  const argsJson = JSON.stringify(names.map((name) => globals[name] ?? null));

  const module = await loadModule();
  const limitsInfo = { label, timeoutMs, memoryBytes };
  let outcome: { ok: true; value: Json } | { ok: false; error: Error } | undefined;
  const runtime = module.newRuntime();
  try {
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
    const context = runtime.newContext();
    try {
      outcome = { ok: true, value: evaluate(context, source, names, argsJson, limitsInfo) };
    } catch (error) {
      outcome = { ok: false, error: asSandboxError(error, module, label) };
    }
    context.dispose();
    runtime.dispose();
  } catch (error) {
    // Disposal (or setup) crashed the module; the outcome, if any, was already copied out.
    discardModule(module);
    outcome ??= { ok: false, error: asSandboxError(error, module, label) };
  }
  if (!outcome?.ok) throw outcome?.error ?? new NonRetryableError(`${label} crashed the sandbox`);
  return outcome.value;
}

interface LimitsInfo {
  label: string;
  timeoutMs: number;
  memoryBytes: number;
}

function evaluate(context: QuickJSContext, source: string, names: string[], argsJson: string, info: LimitsInfo): Json {
  // The body starts on line 1 so the line numbers QuickJS reports are the author's own.
  const compiled = context.evalCode(`(function (${names.join(', ')}) {${source}\n})`, FILE_NAME);
  if (compiled.error) throw guestError(context, compiled.error, info, 'compile');
  const fn = compiled.value;
  try {
    if (context.typeof(fn) !== 'function') {
      throw new NonRetryableError(`${info.label} has a syntax error: the source is not a function body`);
    }
    const runner = context.evalCode(RUNNER_SOURCE, 'weft-runner.js');
    if (runner.error) throw guestError(context, runner.error, info, 'run');
    const argsText = context.newString(argsJson);
    try {
      const result = context.callFunction(runner.value, context.undefined, fn, argsText);
      if (result.error) throw guestError(context, result.error, info, 'run');
      const tagged = result.value.consume((handle) => context.getString(handle));
      return decodeResult(tagged, info.label);
    } finally {
      argsText.dispose();
      runner.value.dispose();
    }
  } finally {
    fn.dispose();
  }
}

function decodeResult(tagged: string, label: string): Json {
  const tag = tagged[0];
  if (tag === 'P') {
    throw new NonRetryableError(
      `${label} returned a Promise: async code (async/await, Promises) isn't supported in code steps; return a plain value`,
    );
  }
  if (tag === 'X') throw new NonRetryableError(`${label} returned ${tagged.slice(1)}, which is not JSON`);
  if (tag !== 'J') throw new NonRetryableError(`${label} returned a value that is not JSON`);
  try {
    return JSON.parse(tagged.slice(1)) as Json;
  } catch {
    // Only reachable when the code replaced JSON.stringify inside its own sandbox.
    throw new NonRetryableError(`${label} returned a value that is not JSON`);
  }
}

/** Turns what the guest threw into a clear NonRetryableError, then frees the handle. */
function guestError(context: QuickJSContext, handle: QuickJSHandle, info: LimitsInfo, phase: 'compile' | 'run'): Error {
  let thrown: unknown;
  try {
    thrown = context.dump(handle);
  } catch {
    thrown = undefined;
  } finally {
    handle.dispose();
  }
  const { label } = info;
  if (!isErrorLike(thrown)) {
    return new NonRetryableError(`${label} threw ${safeJson(thrown)}`);
  }
  const { name, message } = thrown;
  const line = lineOf(thrown);
  const at = line === undefined ? '' : ` (line ${line})`;
  if (name === 'InternalError' && message === 'interrupted') {
    return new NonRetryableError(`${label} exceeded its ${info.timeoutMs} ms time limit`);
  }
  if (name === 'InternalError' && message === 'out of memory') {
    return new NonRetryableError(`${label} exceeded its ${formatBytes(info.memoryBytes)} memory limit`);
  }
  if (name === 'InternalError' && message === 'stack overflow') {
    return new NonRetryableError(`${label} exceeded the maximum call stack size (runaway recursion?)${at}`);
  }
  if (phase === 'compile' && name === 'SyntaxError') {
    return new NonRetryableError(`${label} has a syntax error${at}: ${message}`);
  }
  return new NonRetryableError(`${label} threw ${name}: ${message}${at}`);
}

function asSandboxError(error: unknown, module: QuickJSWASMModule, label: string): Error {
  if (error instanceof NonRetryableError) return error;
  // Anything else came from the host side of the boundary: the module is suspect.
  discardModule(module);
  const message = error instanceof Error ? error.message : String(error);
  return new NonRetryableError(`${label} crashed the sandbox: ${message}`, { cause: error });
}

function isErrorLike(
  value: unknown,
): value is { name: string; message: string; stack?: unknown; lineNumber?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

function lineOf(error: { stack?: unknown; lineNumber?: unknown }): number | undefined {
  if (typeof error.stack === 'string') {
    const match = /code\.js:(\d+)/.exec(error.stack);
    if (match?.[1]) return Number(match[1]);
  }
  return typeof error.lineNumber === 'number' ? error.lineNumber : undefined;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
