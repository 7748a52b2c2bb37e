/**
 * Which external engines this environment configures, read once from the environment for the
 * server and the CLI alike: Temporal with TEMPORAL_ADDRESS, Inngest with INNGEST_DEV (a dev
 * server) or INNGEST_BASE_URL (+ INNGEST_EVENT_KEY / INNGEST_SIGNING_KEY for a real one).
 */
import type { ExternalBackendName } from '@weft/adapters/backends';

export interface TemporalSettings {
  address: string;
  namespace?: string;
  uiUrl?: string;
}

export interface InngestSettings {
  baseUrl: string;
  isDev: boolean;
  eventKey?: string;
  signingKey?: string;
}

export interface BackendSettings {
  temporal?: TemporalSettings;
  inngest?: InngestSettings;
}

/** The dev server's default address, for INNGEST_DEV=1 without a URL. */
const INNGEST_DEV_URL = 'http://127.0.0.1:8288';

export function backendSettings(env: Record<string, string | undefined>): BackendSettings {
  const settings: BackendSettings = {};
  if (env.TEMPORAL_ADDRESS)
    settings.temporal = {
      address: env.TEMPORAL_ADDRESS,
      ...(env.TEMPORAL_NAMESPACE ? { namespace: env.TEMPORAL_NAMESPACE } : {}),
      ...(env.TEMPORAL_UI_URL ? { uiUrl: env.TEMPORAL_UI_URL } : {}),
    };
  const dev = env.INNGEST_DEV && env.INNGEST_DEV !== '0' && env.INNGEST_DEV !== 'false' ? env.INNGEST_DEV : undefined;
  if (dev || env.INNGEST_BASE_URL) {
    const devUrl = dev && /^https?:\/\//.test(dev) ? dev : undefined;
    settings.inngest = {
      baseUrl: env.INNGEST_BASE_URL || devUrl || INNGEST_DEV_URL,
      isDev: dev !== undefined,
      ...(env.INNGEST_EVENT_KEY ? { eventKey: env.INNGEST_EVENT_KEY } : {}),
      ...(env.INNGEST_SIGNING_KEY ? { signingKey: env.INNGEST_SIGNING_KEY } : {}),
    };
  }
  return settings;
}

export function configuredBackends(env: Record<string, string | undefined>): ExternalBackendName[] {
  const settings = backendSettings(env);
  return (['temporal', 'inngest'] as const).filter((name) => settings[name] !== undefined);
}

/** What to set for a backend, for messages naming what is missing. */
export const BACKEND_SETTING: Record<ExternalBackendName, string> = {
  temporal: 'TEMPORAL_ADDRESS',
  inngest: 'INNGEST_DEV or INNGEST_BASE_URL',
};
