/**
 * The API's one secret: a bearer token. `WEFT_TOKEN` wins when set. A server that listens beyond
 * loopback with no `WEFT_TOKEN` generates one on first start and keeps it in `<dataDir>/token`
 * (mode 0600), so it survives restarts; on loopback with none configured, no token is required.
 * Tokens are compared in constant time and never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiContext } from './context.ts';

export interface ResolvedToken {
  /** The token every procedure requires, or null when none is required. */
  token: string | null;
  /** Where it came from: `generated` means it was created (and stored) just now. */
  source: 'env' | 'file' | 'generated' | 'none';
  /** The file it is stored in (`file` and `generated`). */
  file?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);

/** True when `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

export async function resolveToken(options: {
  host: string;
  dataDir: string;
  env?: Record<string, string | undefined>;
}): Promise<ResolvedToken> {
  const fromEnv = (options.env ?? process.env).WEFT_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'env' };
  if (isLoopback(options.host)) return { token: null, source: 'none' };
  const file = join(options.dataDir, 'token');
  const stored = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    },
  );
  if (stored) return { token: stored, source: 'file', file };
  const token = randomBytes(24).toString('base64url');
  await mkdir(options.dataDir, { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // writeFile's mode is filtered by the umask
  return { token, source: 'generated', file };
}

/** The `auth` part of the request context, from an `Authorization` header. */
export function checkBearer(header: string | undefined, token: string | null): ApiContext['auth'] {
  const match = header ? /^Bearer[ \t]+(\S+)\s*$/i.exec(header) : null;
  const provided = match?.[1];
  if (token === null) return { required: false, provided: provided !== undefined, valid: true };
  if (provided === undefined) return { required: true, provided: header !== undefined, valid: false };
  return { required: true, provided: true, valid: sameSecret(provided, token) };
}

/** Constant-time comparison that does not leak the length either (both sides are hashed). */
export function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** `X-Weft-User`: a label for who decided an approval, not an identity. Trimmed and bounded. */
export function userLabel(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  let clean = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code !== 0x7f) clean += char;
  }
  clean = clean.trim().slice(0, 100);
  return clean || null;
}
