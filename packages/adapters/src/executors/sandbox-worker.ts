/**
 * A sandbox worker thread: loads QuickJS once, says `ready`, then runs one job at a time (the
 * pool never sends a second before the first is answered). Node runs this file as is, through
 * type stripping, in the API and under vitest alike: only erasable TypeScript here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { JobMessage, SandboxReply, SandboxWorkerData, WorkerMessage } from './sandbox-protocol.ts';
import { QuickJSSandbox } from './sandbox-quickjs.ts';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts runs as a worker thread of the sandbox pool');

let sandbox = await QuickJSSandbox.load((workerData as SandboxWorkerData).memoryBytes);
const send = (message: WorkerMessage) => port.postMessage(message);

port.on('message', async ({ id, job }: JobMessage) => {
  // The cap is the module's: a job with another memory limit gets a module of its own.
  if (sandbox.memoryBytes !== job.memoryBytes) sandbox = await QuickJSSandbox.load(job.memoryBytes);
  send({ type: 'reply', id, reply: withinResultLimit(job, sandbox.run(job)) });
});
send({ type: 'ready' });

function withinResultLimit(job: JobMessage['job'], reply: SandboxReply): SandboxReply {
  if (!reply.ok || job.maxResultBytes === undefined) return reply;
  const bytes = Buffer.byteLength(reply.json);
  if (bytes <= job.maxResultBytes) return reply;
  return {
    ok: false,
    message: `${job.label} returned ${bytes} bytes of JSON`,
    resultBytes: bytes,
    retire: reply.retire,
  };
}
