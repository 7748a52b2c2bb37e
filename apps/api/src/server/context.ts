import type { ApiServices } from './services.ts';

export interface ApiContext {
  services: ApiServices;
  auth: {
    /** A token is configured: every procedure needs it. */
    required: boolean;
    /** The request carried a token. */
    provided: boolean;
    /** The request carried the configured token. */
    valid: boolean;
  };
  /** Who is asking, for approvals (`by`); the token grants access, this only labels. */
  user: string | null;
}

/** The context for in-process callers (tests, the CLI in the same process): trusted. */
export function trustedContext(services: ApiServices, user: string | null = null): ApiContext {
  return { services, auth: { required: false, provided: false, valid: true }, user };
}
