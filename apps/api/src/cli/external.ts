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
import type { ExternalBackendName, RunBackend } from '@weft/adapters/backends';
import { hostToolSpecs } from '@weft/adapters/executors';
import { INNGEST_SERVE_PATH, type InngestBackend, openInngestBackend } from '@weft/adapters/inngest';
import { openTemporalBackend } from '@weft/adapters/temporal';
import { BACKEND_SETTING } from '../backends.ts';
import type { ExternalDeps, OpenExternal } from '../runtime.ts';
import { messageOf, readEnv } from './context.ts';
import { serveInngestFunction } from './inngest-serve.ts';
import { CliError, stderr } from './output.ts';

/** How a backend is named in messages. */
export const BACKEND_LABEL: Record<ExternalBackendName, string> = { temporal: 'Temporal', inngest: 'Inngest' };

export function isExternalBackend(name: string): name is ExternalBackendName {
  return name in BACKEND_LABEL;
}

/** The message for a backend this environment does not configure. */
export function notConfigured(name: ExternalBackendName): string {
  return `${name} is not configured: set ${BACKEND_SETTING[name]} (start a local server with: weft backend up ${name})`;
}

/**
 * How a command opens an external engine for the runtime (../runtime.ts): with `execute`, this
 * process also executes runs while the command lasts (a Temporal worker, the Inngest function
 * served on loopback); without, it only steers them.
 */
export function openCliExternal(execute: boolean): OpenExternal {
  return async (name, deps) => {
    if (!deps.settings[name]) throw new CliError(notConfigured(name));
    return OPEN[name](deps, execute);
  };
}

const OPEN: Record<ExternalBackendName, (deps: ExternalDeps, execute: boolean) => Promise<RunBackend>> = {
  async temporal({ settings, store, flows, tools, executors }, execute) {
    const config = settings.temporal!;
    const worker = execute && process.env.WEFT_TEMPORAL_WORKER !== 'external';
    if (worker)
      stderr.write(
        stderr.style('dim', `  starting a Temporal worker in this process (${config.address}) for this command\n`),
      );
    try {
      return await openTemporalBackend({
        ...config,
        store,
        hostTools: hostToolSpecs(tools),
        ...(worker ? { worker: { executors: executors(), flows } } : {}),
      });
    } catch (error) {
      throw new CliError(`cannot reach Temporal at ${config.address}: ${messageOf(error)}`);
    }
  },

  async inngest({ settings, store, flows, tools, executors }, execute) {
    const config = settings.inngest!;
    if (!execute || process.env.WEFT_INNGEST_SERVE === 'external') return openInngestBackend({ ...config, store });
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
      serve: { store, executors: executors(), flows, tools, origin: serving.origin },
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
