/**
 * Runs one job in QuickJS compiled to WebAssembly, inside a sandbox worker. Author code never
 * touches Node's own engine (no eval, new Function or node:vm) and has no I/O. Inputs go in as
 * JSON text parsed inside QuickJS; the result comes out as JSON text, so nothing but plain data
 * crosses. Imports no engine code: the worker loads only this and QuickJS.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
  RELEASE_SYNC,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten';
import {
  MAX_RESULT_DEPTH,
  memoryLimitMessage,
  resultTooDeepMessage,
  type SandboxJob,
  type SandboxReply,
  timeLimitMessage,
} from './sandbox-protocol.ts';

// Without an explicit limit, runaway recursion overflows the host's stack instead of
// QuickJS's, which escapes as a host RangeError and leaves the runtime undisposable
// (quickjs-emscripten#60, #269). 256 KiB gives a catchable InternalError instead.
const MAX_STACK_BYTES = 256 * 1024;
const FILE_NAME = 'code.js';
const MiB = 1024 * 1024;
const PAGE_BYTES = 64 * 1024;
// The module declares 16 MiB of initial memory; a memory given to it cannot start smaller.
const INITIAL_BYTES = 16 * MiB;
// What the module holds before author code runs (static data, C stack, a runtime and context):
// measured ~5.3 MiB. Emscripten grows memory in steps of up to +5 % of its size and gives up
// when the step does not fit, so the cap gets 5 % on top for the limit itself to fit.
const MODULE_BYTES = 6 * MiB;
// The most the module's memory import accepts (its own default maximum).
const MAX_BYTES = 2048 * MiB;

/**
 * Why the cap: QuickJS's own limit (setMemoryLimit) counts a block by malloc_usable_size,
 * which its WebAssembly build answers with 0, so it sees 8 bytes per allocation whatever its
 * size and only refuses a single allocation bigger than the limit. A thousand 1 MB strings
 * passed it. The WebAssembly memory's `maximum` bounds every allocation of every kind. Below
 * ~10 MiB the module's 16 MiB floor decides (QuickJS's own limit still refuses any single
 * allocation over the limit).
 */
export function wasmMemoryCap(memoryBytes: number): number {
  const bytes = Math.max(INITIAL_BYTES, Math.ceil((memoryBytes + MODULE_BYTES) * 1.05));
  return Math.min(MAX_BYTES, Math.ceil(bytes / PAGE_BYTES) * PAGE_BYTES);
}

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

// The es2024 lib has no WebAssembly types (they come with the DOM lib); the part used here.
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number; maximum: number }) => { grow(delta: number): number };
};

/** A failure of the author's code, already worded for the step's error. */
class GuestFailure extends Error {}

/** One WebAssembly module under one memory cap; every job gets its own runtime and context in it. */
export class QuickJSSandbox {
  readonly memoryBytes: number;
  readonly #module: QuickJSWASMModule;
  #growFailures: () => number;

  private constructor(memoryBytes: number, module: QuickJSWASMModule, growFailures: () => number) {
    this.memoryBytes = memoryBytes;
    this.#module = module;
    this.#growFailures = growFailures;
  }

  static async load(memoryBytes: number): Promise<QuickJSSandbox> {
    const memory = new WebAssembly.Memory({
      initial: INITIAL_BYTES / PAGE_BYTES,
      maximum: wasmMemoryCap(memoryBytes) / PAGE_BYTES,
    });
    // Emscripten grows the heap through this object's grow(); a refusal means the cap was hit.
    // It is the one reliable out-of-memory signal: QuickJS may have no memory left to build
    // its InternalError and throw null instead.
    let failures = 0;
    const grow = memory.grow.bind(memory);
    memory.grow = (delta: number) => {
      try {
        return grow(delta);
      } catch (error) {
        failures++;
        throw error;
      }
    };
    const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
    return new QuickJSSandbox(memoryBytes, module, () => failures);
  }

  run(job: SandboxJob): SandboxReply {
    const failuresBefore = this.#growFailures();
    const hitCap = () => this.#growFailures() > failuresBefore;
    let reply: SandboxReply | undefined;
    try {
      const runtime = this.#module.newRuntime();
      // QuickJS takes a 32-bit size: a limit of 4 GiB would wrap to 0.
      runtime.setMemoryLimit(Math.min(job.memoryBytes, wasmMemoryCap(job.memoryBytes)));
      runtime.setMaxStackSize(MAX_STACK_BYTES);
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + job.timeoutMs));
      const context = runtime.newContext();
      try {
        reply = { ok: true, json: evaluate(context, job, hitCap), retire: false };
      } catch (error) {
        if (!(error instanceof GuestFailure)) throw error;
        // After the cap was hit the heap is fragmented at best: start the next call afresh.
        reply = { ok: false, message: error.message, retire: hitCap() };
      }
      context.dispose();
      runtime.dispose();
    } catch (error) {
      // A WebAssembly abort (a QuickJS assertion, e.g. quickjs-emscripten#257 after an
      // out-of-memory) leaves the module unusable; the reply, if any, was already copied out.
      if (reply) return { ...reply, retire: true };
      const message = hitCap()
        ? memoryLimitMessage(job)
        : `${job.label} crashed the sandbox: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, message, retire: true };
    }
    return reply;
  }
}

function evaluate(context: QuickJSContext, job: SandboxJob, hitCap: () => boolean): string {
  // The body starts on line 1 so the line numbers QuickJS reports are the author's own.
  const compiled = context.evalCode(`(function (${job.names.join(', ')}) {${job.source}\n})`, FILE_NAME);
  if (compiled.error) throw guestError(context, compiled.error, job, hitCap, 'compile');
  const fn = compiled.value;
  try {
    if (context.typeof(fn) !== 'function') {
      throw new GuestFailure(`${job.label} has a syntax error: the source is not a function body`);
    }
    const runner = context.evalCode(RUNNER_SOURCE, 'weft-runner.js');
    if (runner.error) throw guestError(context, runner.error, job, hitCap, 'run');
    const argsText = context.newString(job.argsJson);
    try {
      const result = context.callFunction(runner.value, context.undefined, fn, argsText);
      if (result.error) throw guestError(context, result.error, job, hitCap, 'run');
      const tagged = result.value.consume((handle) => context.getString(handle));
      const json = untag(tagged, job.label);
      // Counted here, on the worker: a refused result costs the API's thread nothing.
      const depth = jsonDepth(json);
      if (depth > MAX_RESULT_DEPTH) throw new GuestFailure(resultTooDeepMessage(job, depth));
      return json;
    } finally {
      argsText.dispose();
      runner.value.dispose();
    }
  } finally {
    fn.dispose();
  }
}

/** The JSON text of a "J" result; the other tags become the step's error. */
function untag(tagged: string, label: string): string {
  const tag = tagged[0];
  if (tag === 'P') {
    throw new GuestFailure(
      `${label} returned a Promise: async code (async/await, Promises) isn't supported in code steps; return a plain value`,
    );
  }
  if (tag === 'X') throw new GuestFailure(`${label} returned ${tagged.slice(1)}, which is not JSON`);
  if (tag !== 'J') throw new GuestFailure(`${label} returned a value that is not JSON`);
  return tagged.slice(1);
}

/**
 * How deep JSON text nests, without parsing it (a parse is what would overflow): brackets
 * count only outside strings, and a string's end is the first quote not escaped.
 */
export function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return deepest;
}

/** Turns what the guest threw into a clear GuestFailure, then frees the handle. */
function guestError(
  context: QuickJSContext,
  handle: QuickJSHandle,
  job: SandboxJob,
  hitCap: () => boolean,
  phase: 'compile' | 'run',
): GuestFailure {
  let thrown: unknown;
  try {
    thrown = context.dump(handle);
  } catch {
    thrown = undefined;
  } finally {
    handle.dispose();
  }
  const { label } = job;
  if (!isErrorLike(thrown)) {
    // At the cap QuickJS cannot allocate its InternalError and throws null instead.
    if (hitCap() && (thrown === null || thrown === undefined)) return new GuestFailure(memoryLimitMessage(job));
    return new GuestFailure(`${label} threw ${safeJson(thrown)}`);
  }
  const { name, message } = thrown;
  const line = lineOf(thrown);
  const at = line === undefined ? '' : ` (line ${line})`;
  if (name === 'InternalError' && message === 'interrupted') return new GuestFailure(timeLimitMessage(job));
  if (name === 'InternalError' && message === 'out of memory') return new GuestFailure(memoryLimitMessage(job));
  if (name === 'InternalError' && message === 'stack overflow') {
    return new GuestFailure(`${label} exceeded the maximum call stack size (runaway recursion?)${at}`);
  }
  if (phase === 'compile' && name === 'SyntaxError') {
    return new GuestFailure(`${label} has a syntax error${at}: ${message}`);
  }
  return new GuestFailure(`${label} threw ${name}: ${message}${at}`);
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
