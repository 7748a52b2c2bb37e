/**
 * The API's secret: a bearer token. `WEFT_TOKEN` wins when set. A server that listens beyond
 * loopback with no `WEFT_TOKEN` generates one on first start and keeps it in `<dataDir>/token`
 * (mode 0600), so it survives restarts; on loopback with none configured, no token is required.
 * `WEFT_TOKENS` adds more tokens (separated by spaces, commas or newlines), each a credential of
 * its own: every token reaches every procedure, but a chat is private to the token that made it
 * (`credentialOwner`). Tokens are compared in constant time and never logged.
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
  /** More tokens the server accepts (`WEFT_TOKENS`); absent when there are none. */
  extra?: string[];
}

/** What a server accepts: one token, several, or none (null: no token is required). */
export type ServerTokens = string | readonly string[] | null;

/** The credential of a chat made without a token, on a server that requires none. */
export const ANONYMOUS_OWNER = 'anonymous';

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
  const env = options.env ?? process.env;
  const fromEnv = env.WEFT_TOKEN?.trim();
  const extra = (env.WEFT_TOKENS ?? '').split(/[\s,]+/).filter((token) => token !== '' && token !== fromEnv);
  if (fromEnv) return { token: fromEnv, source: 'env', ...(extra.length > 0 ? { extra } : {}) };
  if (extra.length > 0)
    return { token: extra[0]!, source: 'env', ...(extra.length > 1 ? { extra: extra.slice(1) } : {}) };
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
export function checkBearer(header: string | undefined, token: ServerTokens): ApiContext['auth'] {
  const provided = bearerOf(header);
  const tokens = tokenList(token);
  if (tokens.length === 0) return { required: false, provided: provided !== undefined, valid: true };
  if (provided === undefined) return { required: true, provided: header !== undefined, valid: false };
  // Every token is compared (no early exit), so the time does not tell which one matched.
  let valid = false;
  for (const candidate of tokens) valid = sameSecret(provided, candidate) || valid;
  return { required: true, provided: true, valid };
}

/**
 * Who a request is, for what is private to a credential (chats): `sha256:<hex>` of its bearer
 * token, never the token itself; `anonymous` on a server that requires no token (there every
 * caller is the same party, whatever header it sends). Call it after `checkBearer` said valid.
 */
export function credentialOwner(header: string | undefined, token: ServerTokens): string {
  const provided = bearerOf(header);
  if (tokenList(token).length === 0 || provided === undefined) return ANONYMOUS_OWNER;
  return ownerOfToken(provided);
}

/** The owner a token's requests get (`credentialOwner`). */
export function ownerOfToken(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

/** The server's first token (the one chats from before owners go to), or null for none. */
export function primaryToken(token: ServerTokens): string | null {
  return tokenList(token)[0] ?? null;
}

function tokenList(token: ServerTokens): readonly string[] {
  if (token === null) return [];
  return (typeof token === 'string' ? [token] : token).filter((one) => one !== '');
}

function bearerOf(header: string | undefined): string | undefined {
  return (header ? /^Bearer[ \t]+(\S+)\s*$/i.exec(header) : null)?.[1];
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
