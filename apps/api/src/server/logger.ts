/** Structured logs (pino), JSON lines on stderr. Never log a secret: redact the usual places. */
import pino, { type Logger } from 'pino';

export function createLogger(env: Record<string, string | undefined> = process.env): Logger {
  return pino(
    {
      level: env.WEFT_LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
      base: { app: 'weft-api' },
      redact: {
        paths: ['req.headers.authorization', '*.apiKey', '*.token', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    pino.destination(2),
  );
}
