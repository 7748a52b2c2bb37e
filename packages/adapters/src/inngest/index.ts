export { INNGEST_SERVE_PATH, type InngestBackend, type InngestBackendOptions, openInngestBackend } from './backend.ts';
export {
  devServerArgs as inngestDevServerArgs,
  type InngestDevServer,
  inngestBinary,
  startInngestDevServer,
} from './dev-server.ts';
export { createWeftFunction, type WeftFunctionDeps } from './function.ts';
export * from './types.ts';
