/**
 * The native Temporal workflows (bundled by lib/native-temporal.ts with the SDK's own bundler):
 * plain TypeScript workflows with no-op activities, no Weft. `@temporalio/workflow` is a
 * dependency of packages/adapters, so it is imported from there by path (the bundler resolves it
 * to the same module the generated entry point uses).
 */
import { proxyActivities } from '../../packages/adapters/node_modules/@temporalio/workflow/lib/index.js';
import {
  type NativeAgentResult,
  type NativeModelAnswer,
  type NativeModelInput,
  type NativeToolCall,
  type NativeTurn,
  nativeAgentLoop,
} from './native-agent.ts';

export interface NativeActivities {
  noop(step: number): Promise<null>;
  model(input: NativeModelInput): Promise<NativeModelAnswer>;
  tool(call: NativeToolCall): Promise<null>;
}

// The SDK's defaults otherwise (retries with backoff); a no-op never needs them.
const { noop, model, tool } = proxyActivities<NativeActivities>({ startToCloseTimeout: '1m' });

/** `steps` no-op activities, one after another; returns how many completed. */
export async function nativeSequential(steps: number): Promise<number> {
  let done = 0;
  for (let i = 0; i < steps; i++) {
    await noop(i);
    done++;
  }
  return done;
}

/** `width` no-op activities at once, joined; returns how many completed. */
export async function nativeFanOut(width: number): Promise<number> {
  const results = await Promise.all(Array.from({ length: width }, (_, i) => noop(i)));
  return results.length;
}

/** The agent loop: a model activity per turn, a tool activity per tool call. */
export async function nativeAgent(fixtures: NativeTurn[]): Promise<NativeAgentResult> {
  return nativeAgentLoop(fixtures, model, tool);
}
