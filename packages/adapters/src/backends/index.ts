export { freePort } from './dev-process.ts';
export type {
  ExternalBackend,
  ExternalBackendName,
  ExternalDecision,
  ExternalRunStart,
} from './external.ts';
