/**
 * The native Inngest program of bench/backends: one plain `inngest` function (its own app id,
 * served from this process on its own port), triggered by an event, doing each scenario with
 * `step.run` — in a loop, as a `Promise.all`, or per agent turn a model step and a tool step —
 * on the same dev server as Weft's function and with the same client settings (checkpointing
 * off, as Weft's backend has it). The end of a run is the function body passing its last await
 * (the request Inngest makes once every step is done), which resolves the waiting bench call in
 * this process; a failed run rejects it (`onFailure`).
 *
 * `inngest` is a dependency of packages/adapters (an ES module): imported from there by path.
 */
import { createServer, type Server } from 'node:http';
import { Inngest } from '../../packages/adapters/node_modules/inngest/index.js';
import { serve } from '../../packages/adapters/node_modules/inngest/node.js';
import {
  type NativeBench,
  type NativeJob,
  type NativeModelAnswer,
  nativeAgentLoop,
  nativeModelTurn,
  nativeTool,
} from './native-agent.ts';

const APP_ID = 'weft-bench-native';
const EVENT = 'bench/native.requested';
const SERVE_PATH = '/api/native-inngest';
/** A run that has not ended by then has hung: the bench stops with an error. */
const RUN_TIMEOUT_MS = 15 * 60_000;

interface NativeEventData {
  key: string;
  job: NativeJob;
}

const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export async function openNativeInngest(baseUrl: string): Promise<NativeBench> {
  const waiting = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>();
  const client = new Inngest({ id: APP_ID, isDev: true, baseUrl, logger: quietLogger, checkpointing: false });
  const fn = client.createFunction(
    {
      id: 'native',
      triggers: [{ event: EVENT }],
      onFailure: ({ event, error }) => {
        const data = (event.data as { event?: { data?: NativeEventData } }).event?.data;
        if (data) waiting.get(data.key)?.reject(new Error(`native Inngest run failed: ${error.message}`));
      },
    },
    async ({ event, step }) => {
      const { key, job } = event.data as NativeEventData;
      let result: unknown;
      if (job.kind === 'sequential') {
        let done = 0;
        for (let i = 0; i < job.steps; i++) {
          await step.run(`s${i}`, () => null);
          done++;
        }
        result = done;
      } else if (job.kind === 'fanOut') {
        const results = await Promise.all(Array.from({ length: job.width }, (_, i) => step.run(`t${i}`, () => null)));
        result = results.length;
      } else {
        result = await nativeAgentLoop(
          job.fixtures,
          async (input) =>
            (await step.run(`model-${input.turn}`, () => nativeModelTurn(input))) as unknown as NativeModelAnswer,
          (call) => step.run(`tool-${call.id}`, () => nativeTool(call)),
        );
      }
      waiting.get(key)?.resolve(result);
      return result;
    },
  );
  const handler = serve({ client, functions: [fn], servePath: SERVE_PATH });
  const http: Server = createServer((req, res) => {
    if (req.url?.startsWith(SERVE_PATH)) void handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const sync = await fetch(`http://127.0.0.1:${address.port}${SERVE_PATH}`, { method: 'PUT' });
  if (!sync.ok) throw new Error(`syncing the native app with Inngest failed: ${sync.status} ${await sync.text()}`);
  let sequence = 0;
  return {
    label: 'inngest native',
    describe:
      'a plain function: one step.run per step (awaited in a loop / Promise.all), per agent turn a model step and a tool step',
    async run(job: NativeJob) {
      const key = `native-${process.pid}-${++sequence}`;
      const done = new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`native Inngest run ${key} did not end`)), RUN_TIMEOUT_MS);
        waiting.set(key, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
      try {
        await client.send({ name: EVENT, data: { key, job } satisfies NativeEventData });
        return await done;
      } finally {
        waiting.delete(key);
      }
    },
    async close() {
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
