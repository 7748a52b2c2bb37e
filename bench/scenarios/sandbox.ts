/**
 * Row 7: what a `code` step costs beyond its own work: one trivial call into the QuickJS
 * sandbox (a fresh context with time, memory and stack limits, args in, result out), against
 * the same function body run by plain JavaScript. Was a timed unit test; speed is measured here.
 */
import { runInSandbox } from '../../packages/adapters/src/executors/sandbox.ts';
import type { BenchContext } from '../lib/context.ts';
import { sample, timeMs } from '../lib/measure.ts';
import type { Row } from '../lib/table.ts';

const CALLS = 200;
/** Per trivial call: well under a model call's latency, so code steps never dominate a flow. */
export const SANDBOX_CALL_TARGET_MS = 25;

export async function sandboxCalls(ctx: BenchContext): Promise<Row> {
  const source = 'return { doubled: args.n * 2 };';
  await runInSandbox(source, { args: { n: 0 } }); // loads the WebAssembly module once
  const weft = await sample(ctx.plan, async () => {
    const ms = await timeMs(async () => {
      for (let n = 0; n < CALLS; n++) {
        const result = (await runInSandbox(source, { args: { n } })) as { doubled: number };
        if (result.doubled !== n * 2) throw new Error(`sandbox returned ${JSON.stringify(result)} for ${n}`);
      }
    });
    return ms / CALLS;
  });
  // The same body written as plain JavaScript (no eval: the sandbox is the only place code runs).
  const plain = async (args: { n: number }) => ({ doubled: args.n * 2 });
  const raw = await sample(ctx.plan, async () => {
    const ms = await timeMs(async () => {
      for (let n = 0; n < CALLS; n++) await plain({ n });
    });
    return ms / CALLS;
  });
  return {
    id: '7',
    what: `a trivial code step in the QuickJS sandbox (${CALLS} calls)`,
    unit: 'ms/call',
    weft,
    raw,
    target: { kind: 'below', max: SANDBOX_CALL_TARGET_MS, unit: 'ms' },
  };
}
