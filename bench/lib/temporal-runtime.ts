/**
 * Quiets the Temporal worker's logger (warnings and errors only) so stdout holds the report.
 * `@temporalio/worker` is a dependency of packages/adapters, not of the workspace root, so it is
 * loaded from there — the same module instance the adapter's worker uses; only `Runtime.install`
 * and `DefaultLogger` are typed.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const requireFromAdapters = createRequire(new URL('../../packages/adapters/package.json', import.meta.url));

interface WorkerModule {
  Runtime: { install(options: { logger: unknown }): unknown };
  DefaultLogger: new (level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR') => unknown;
}

/** Must run before the first worker or native connection is created. */
export async function quietTemporalRuntime(): Promise<void> {
  const loaded = (await import(pathToFileURL(requireFromAdapters.resolve('@temporalio/worker')).href)) as
    | WorkerModule
    | { default: WorkerModule };
  const worker = 'Runtime' in loaded ? loaded : loaded.default;
  worker.Runtime.install({ logger: new worker.DefaultLogger('WARN') });
}
