/**
 * The real Inngest dev server, for tests and `weft backend up inngest`: built once from the Go
 * module proxy by scripts/ensure-inngest.sh and cached under .tools/bin, started on loopback
 * free ports with discovery and polling off (apps sync themselves with a PUT to their serve
 * endpoint), stopped with SIGTERM (then SIGKILL).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, startDevProcess, withFreshPortsOnClash } from '../backends/dev-process.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENSURE_SCRIPT = `${ROOT}scripts/ensure-inngest.sh`;

/** The cached binary (INNGEST_CLI overrides); built by ensure-inngest.sh when missing. */
export async function inngestBinary(): Promise<string> {
  const override = process.env.INNGEST_CLI;
  if (override) return override;
  const dir = `${ROOT}.tools/bin`;
  const cached = existsSync(dir) ? readdirSync(dir).find((name) => /^inngest-v[\d.]+$/.test(name)) : undefined;
  if (cached) return `${dir}/${cached}`;
  const { stdout } = await promisify(execFile)('bash', [ENSURE_SCRIPT], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim().split('\n').at(-1) ?? '';
}

export interface InngestDevServer {
  /** http://127.0.0.1:<port>: the event API, the run API and the dev UI. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The `inngest dev` arguments for a loopback server on `port`. `tickMs` is how often the
 * executor polls its queue: the dev server's default (150 ms) is the floor of every step's latency.
 */
export async function devServerArgs(options: { port: number; tickMs?: number; sdkUrl?: string }): Promise<string[]> {
  return [
    'dev',
    '--no-discovery',
    '--no-poll',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--connect-gateway-port',
    String(await freePort()),
    '--tick',
    String(options.tickMs ?? 20),
    ...(options.sdkUrl ? ['-u', options.sdkUrl] : []),
    '--log-level',
    'error',
  ];
}

export async function startInngestDevServer(
  options: { startTimeoutMs?: number; tickMs?: number } = {},
): Promise<InngestDevServer> {
  return withFreshPortsOnClash(() => startOnFreePorts(options));
}

async function startOnFreePorts(options: { startTimeoutMs?: number; tickMs?: number }): Promise<InngestDevServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startDevProcess({
    name: `inngest dev server on ${url}`,
    binary: await inngestBinary(),
    args: await devServerArgs({ port, ...(options.tickMs ? { tickMs: options.tickMs } : {}) }),
    timeoutMs: options.startTimeoutMs ?? 60_000,
    async ready() {
      const response = await fetch(`${url}/health`);
      if (!response.ok) throw new Error(`health ${response.status}`);
    },
  });
  return { url, stop: () => server.stop() };
}
