/**
 * The `weft` CLI: validate and run flows, decide approvals, inspect, resume and cancel runs,
 * export a run's model turns as fixtures. Run from the repo root as `pnpm weft …`.
 *
 * Configuration comes from the environment: WEFT_DATA (the data folder; default `data/`) or
 * DATABASE_URL (postgres://…) picks the run store; OPENAI_API_KEY, ANTHROPIC_API_KEY,
 * WEFT_LOCAL_BASE_URL configure models; WEFT_MAX_INPUT_BYTES caps a run's input. Secrets are
 * never printed.
 */
import { enableCompileCache } from 'node:module';

// Node's on-disk compile cache (NODE_DISABLE_COMPILE_CACHE=1 turns it off) halves start-up:
// most of a CLI call is compiling the engine, the store and the model SDKs. It must be enabled
// before they load, hence the dynamic imports below.
enableCompileCache();

// `weft runs show … | head`: the reader went away; that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

const { main } = await import('./cli.ts');
const { drain } = await import('./output.ts');
const code = await main(process.argv.slice(2));
await drain();
// Exit explicitly: a provider's keep-alive socket or a driver pool must not hold the CLI open.
process.exit(code);
