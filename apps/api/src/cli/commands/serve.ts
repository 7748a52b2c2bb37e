/**
 * `weft serve`: the API server on the embedded defaults (SQLite under WEFT_DATA, or DATABASE_URL),
 * with the in-process runner. Runs a crash left behind are resumed at start; SIGINT/SIGTERM close
 * the server, then the runner and the store (interrupted runs stay resumable).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  CHAT_CLIENT_OVERRIDES_ENV,
  type ChatClientOverrides,
  parseChatClientOverrides,
} from '../../server/chat/chat-overrides.ts';
import type { ApiServices } from '../../server/services.ts';
import { type Command, parseCommandArgs } from '../args.ts';
import { readEnv } from '../context.ts';
import { CliError, EXIT, redact, stderr, stdout, UsageError } from '../output.ts';

const usage = `Usage: weft serve [--port <n>] [--host <addr>] [--web-origin <url>] [--chat-client-overrides <list>]

Starts Weft: the browser editor at / (the build in apps/web/dist, or $WEFT_WEB_DIST), tRPC at
/trpc, GET /health. Prints "Weft API listening on <url>", then "Weft editor: <url>/".

Options:
  --port <n>          port to listen on (default: $PORT, else 3001; 0 picks a free one)
  --host <addr>       address to listen on (default: 127.0.0.1, this machine only)
  --web-origin <url>  the one browser origin allowed to call the API (default: $WEFT_WEB_ORIGIN;
                      none: the editor is served from the same origin)
  --chat-client-overrides <list>
                      what a /api/chat client may set besides the conversation: any of fixtures
                      (recorded model turns: they force tool calls), backend, input (the rest of
                      the run input), comma-separated, or all, or none (default:
                      $WEFT_CHAT_CLIENT_OVERRIDES, else none: such a request gets 403)
  -h, --help          show this help

Environment:
  WEFT_DATA      data folder (default: data/)     DATABASE_URL  postgres://… instead of SQLite
  WEFT_TOKEN     bearer token every call must carry. Listening beyond loopback without one,
                 a token is generated, stored in <WEFT_DATA>/token (0600) and printed.
  WEFT_TOKENS    more accepted tokens (space- or comma-separated), one per person or client:
                 each reaches every procedure, but a chat is private to the token that made it
  WEFT_WEB_DIST  the built editor to serve (default: apps/web/dist; build: pnpm --filter @weft/web build)
  WEFT_LOG_LEVEL pino level for the JSON logs on stderr (default: info)
  WEFT_TESTS_DIR where tests.save writes test cases and tests.run reads them (default: tests/)
  WEFT_EXAMPLES_DIR the example flows the flow list's gallery shows (default: examples/ of this repository)`;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'start the server: the editor at /, tRPC at /trpc, GET /health',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'web-origin': { type: 'string' },
        'chat-client-overrides': { type: 'string' },
      },
      positionals: { min: 0, max: 0, names: '' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const port = parsePort(args.values.port ?? process.env.PORT, args.values.port !== undefined ? '--port' : 'PORT');
    const host = args.values.host || '127.0.0.1';
    const webOrigin = args.values['web-origin'] || process.env.WEFT_WEB_ORIGIN || undefined;
    if (webOrigin !== undefined && !URL.canParse(webOrigin)) {
      throw new UsageError(`--web-origin must be a URL such as http://localhost:5173 (got '${webOrigin}')`, usage);
    }
    const overridesFlag = args.values['chat-client-overrides'] !== undefined;
    const overridesText = overridesFlag ? args.values['chat-client-overrides'] : process.env[CHAT_CLIENT_OVERRIDES_ENV];
    let chatClientOverrides: ChatClientOverrides;
    try {
      chatClientOverrides = parseChatClientOverrides(overridesText);
    } catch (error) {
      const where = overridesFlag ? '--chat-client-overrides' : CHAT_CLIENT_OVERRIDES_ENV;
      throw new UsageError(`${where}: ${messageOf(error)}`, usage);
    }
    const env = readEnv();

    // Loaded here: the server, the runner and the model SDKs are not worth loading for --help.
    const [{ createServices }, { startServer }, { resolveToken }, { resolveWebDist, BUILD_COMMAND }] =
      await Promise.all([
        import('../../server/services.ts'),
        import('../../server/http.ts'),
        import('../../server/auth.ts'),
        import('../../server/static.ts'),
      ]);
    const webDist = resolveWebDist();
    const token = await resolveToken({ host, dataDir: env.dataDir });
    let services: ApiServices;
    try {
      services = await createServices({
        ...(env.databaseUrl ? { databaseUrl: env.databaseUrl } : { dataDir: env.dataDir }),
      });
    } catch (error) {
      const where = env.databaseUrl ? 'the PostgreSQL database in DATABASE_URL' : resolve(env.dataDir);
      throw new CliError(`cannot open the run store (${where}): ${redact(messageOf(error))}`);
    }
    const log = services.log;
    // A bad WEFT_PRICES file is said once, here at start-up; prices fall back to the tables meanwhile.
    const { reportPriceProblems } = await import('@weft/adapters/service');
    reportPriceProblems((problem, line) => log.warn({ file: problem.file, field: problem.field }, line));

    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({
        services,
        port,
        host,
        token: token.extra && token.token !== null ? [token.token, ...token.extra] : token.token,
        webOrigin: webOrigin ?? null,
        webDist,
        chatClientOverrides,
      });
    } catch (error) {
      await services.close().catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new CliError(`port ${port} on ${host} is already in use (try --port or PORT)`);
      if (code === 'EADDRNOTAVAIL') throw new CliError(`cannot listen on ${host}: no such local address`);
      throw error;
    }

    stdout.write(`Weft API listening on ${server.url}\n`);
    const built = existsSync(join(webDist, 'index.html'));
    stdout.write(
      built
        ? `Weft editor: ${server.url}/\n`
        : `Weft editor: ${server.url}/ (not built yet: run ${BUILD_COMMAND}, then reload)\n`,
    );
    if (token.source === 'generated') {
      stdout.write(
        `A bearer token is required beyond loopback. Generated one, stored in ${token.file}:\n` +
          `  WEFT_TOKEN=${token.token}\n`,
      );
    } else if (token.source === 'file') {
      stdout.write(`A bearer token is required: the one stored in ${token.file} (or set WEFT_TOKEN).\n`);
    } else if (token.source === 'env') {
      stdout.write(
        `A bearer token is required: WEFT_TOKEN${token.extra ? ` or one of WEFT_TOKENS (${token.extra.length})` : ''}.\n`,
      );
    }
    if (chatClientOverrides.size > 0) {
      stdout.write(`Chat clients may set: ${[...chatClientOverrides].join(', ')} (--chat-client-overrides).\n`);
    }
    log.info({ url: server.url, auth: token.source !== 'none', webOrigin: webOrigin ?? null }, 'listening');

    // Resume what a crash left behind, without holding up requests: recover() runs each run to
    // its next stop, which for a long agent loop is a while. Hand-offs a crash cut short first:
    // each is one start call, keyed by the run id (a run its engine has is not started twice).
    const recovery = services.runs
      .recoverHandOffs()
      .then(
        (ids) => ids.length > 0 && log.info({ handOffs: ids.length }, `started ${ids.length} handed-off run(s) again`),
        (error: unknown) => log.error({ err: error }, 'recovering hand-offs failed'),
      )
      .then(() => services.runner.recover())
      .then(
        (outcomes) => log.info({ recovered: outcomes.length }, `recovered ${outcomes.length} run(s)`),
        (error: unknown) => log.error({ err: error }, 'recovering runs failed'),
      );

    const signal = await new Promise<NodeJS.Signals>((done) => {
      process.once('SIGINT', () => done('SIGINT'));
      process.once('SIGTERM', () => done('SIGTERM'));
    });
    log.info({ signal }, 'shutting down');
    // A second signal while closing: leave at once.
    const force = () => process.exit(EXIT.failed);
    process.once('SIGINT', force);
    process.once('SIGTERM', force);
    await server.close();
    await services.close();
    await recovery;
    stderr.write('Weft API stopped.\n');
    return EXIT.ok;
  },
};

function parsePort(raw: string | undefined, flag: string): number {
  if (raw === undefined || raw === '') return 3001;
  if (!/^\d+$/.test(raw) || Number(raw) > 65_535) {
    throw new UsageError(`${flag} must be a port number from 0 to 65535 (got '${raw}')`, usage);
  }
  return Number(raw);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
