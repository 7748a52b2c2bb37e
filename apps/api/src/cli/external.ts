/**
 * The external engines (Temporal, Inngest) from the CLI, configured by the same settings as
 * the server (../backends.ts). A command that executes a run (`run`, `approve`) also makes this
 * process able to execute it while the command lasts:
 * - Temporal: a worker in this process, unless WEFT_TEMPORAL_WORKER=external says one runs
 *   elsewhere (`weft worker temporal`, or a `weft serve`).
 * - Inngest: the function served on loopback and synced with the Inngest server (at one stable
 *   URL, see inngest-serve.ts), unless WEFT_INNGEST_SERVE=external says a `weft serve` serves it.
 *   The dev server knows an app by its URL, so an API's app and the CLI's are two apps, and a
 *   run would start in both: with an API registered on that Inngest server, set
 *   WEFT_INNGEST_SERVE=external.
 * A command that only steers a run (`runs cancel`) passes no flows and gets neither.
 */
import type { ExternalBackend, ExternalBackendName } from '@weft/adapters/backends';
import { createExecutorRegistry } from '@weft/adapters/executors';
import { INNGEST_SERVE_PATH, type InngestBackend, openInngestBackend } from '@weft/adapters/inngest';
import type { FlowSource } from '@weft/adapters/inprocess';
import type { RunStore } from '@weft/adapters/store';
import { openTemporalBackend } from '@weft/adapters/temporal';
import { BACKEND_SETTING, type BackendSettings, backendSettings } from '../backends.ts';
import { messageOf, readEnv } from './context.ts';
import { serveInngestFunction } from './inngest-serve.ts';
import { CliError, stderr } from './output.ts';

/** An external backend a CLI command opened (the Inngest one re-sends missed decisions by itself). */
export type CliBackend = ExternalBackend;

export interface CliBackendOptions {
  store: RunStore;
  /** Execute runs in this process while the command lasts, reading `spawn` targets here. */
  flows?: FlowSource;
}

/** How a backend is named in messages. */
export const BACKEND_LABEL: Record<ExternalBackendName, string> = { temporal: 'Temporal', inngest: 'Inngest' };

export function isExternalBackend(name: string): name is ExternalBackendName {
  return name in BACKEND_LABEL;
}

/** The message for a backend this environment does not configure. */
export function notConfigured(name: ExternalBackendName): string {
  return `${name} is not configured: set ${BACKEND_SETTING[name]} (start a local server with: weft backend up ${name})`;
}

export async function openCliBackend(name: ExternalBackendName, options: CliBackendOptions): Promise<CliBackend> {
  const settings = backendSettings(process.env);
  if (!settings[name]) throw new CliError(notConfigured(name));
  return OPEN[name](settings, options);
}

const OPEN: Record<
  ExternalBackendName,
  (settings: BackendSettings, options: CliBackendOptions) => Promise<CliBackend>
> = {
  async temporal(settings, { store, flows }) {
    const config = settings.temporal!;
    const worker = flows && process.env.WEFT_TEMPORAL_WORKER !== 'external';
    if (worker)
      stderr.write(
        stderr.style('dim', `  starting a Temporal worker in this process (${config.address}) for this command\n`),
      );
    try {
      return await openTemporalBackend({
        ...config,
        store,
        ...(worker ? { worker: { executors: createExecutorRegistry(), flows } } : {}),
      });
    } catch (error) {
      throw new CliError(`cannot reach Temporal at ${config.address}: ${messageOf(error)}`);
    }
  },

  async inngest(settings, { store, flows }) {
    const config = settings.inngest!;
    if (!flows || process.env.WEFT_INNGEST_SERVE === 'external') return openInngestBackend({ ...config, store });
    let backend: InngestBackend | undefined;
    let synced: Promise<void> | undefined;
    const serving = await serveInngestFunction({
      dataDir: readEnv().dataDir,
      baseUrl: config.baseUrl,
      path: INNGEST_SERVE_PATH,
      handler: () => backend?.handler,
      // Taking the port over from another command: sync again, in case the server forgot the app.
      onListening: (origin) => {
        if (backend) synced = backend.register(origin).catch(() => undefined);
      },
    });
    backend = openInngestBackend({
      ...config,
      store,
      serve: { store, executors: createExecutorRegistry(), flows, origin: serving.origin },
    });
    if (serving.listening()) {
      try {
        await backend.register(serving.origin);
      } catch (error) {
        await serving.close();
        throw new CliError(`cannot reach Inngest at ${config.baseUrl}: ${messageOf(error)}`);
      }
      stderr.write(
        stderr.style('dim', `  serving the Inngest function from this process (${serving.origin}) for this command\n`),
      );
    } else {
      stderr.write(
        stderr.style(
          'dim',
          `  another weft command serves the Inngest function (${serving.origin}); this one takes over when it ends\n`,
        ),
      );
    }
    const opened = backend;
    return {
      ...opened,
      async close() {
        await synced;
        await opened.close();
        await serving.close();
      },
    };
  },
};
