export type {
  ExternalBackend,
  ExternalBackendName,
  ExternalDecision,
  ExternalRunStart,
} from './external.ts';
