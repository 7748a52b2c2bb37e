/**
 * Several tokens (`WEFT_TOKENS` beside `WEFT_TOKEN`): each accepted, each its own credential for
 * what is private to one (chats), and the owner derived from a token never contains it.
 */
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_OWNER, checkBearer, credentialOwner, ownerOfToken, primaryToken, resolveToken } from './auth.ts';

describe('several tokens', () => {
  it('reads WEFT_TOKENS beside WEFT_TOKEN, separated by spaces, commas or newlines', async () => {
    const resolve = (env: Record<string, string>) => resolveToken({ host: '127.0.0.1', dataDir: '/nonexistent', env });
    expect(await resolve({ WEFT_TOKEN: 'main', WEFT_TOKENS: 'b, c\nd main' })).toEqual({
      token: 'main',
      source: 'env',
      extra: ['b', 'c', 'd'],
    });
    expect(await resolve({ WEFT_TOKENS: ' first second ' })).toEqual({
      token: 'first',
      source: 'env',
      extra: ['second'],
    });
    expect(await resolve({ WEFT_TOKENS: 'only' })).toEqual({ token: 'only', source: 'env' });
    expect(await resolve({ WEFT_TOKENS: ' , ' })).toEqual({ token: null, source: 'none' });
  });

  it('accepts any of them and nothing else', () => {
    const tokens = ['token-a', 'token-b'];
    expect(checkBearer('Bearer token-a', tokens).valid).toBe(true);
    expect(checkBearer('Bearer token-b', tokens).valid).toBe(true);
    expect(checkBearer('Bearer token-c', tokens)).toEqual({ required: true, provided: true, valid: false });
    expect(checkBearer(undefined, tokens)).toEqual({ required: true, provided: false, valid: false });
    expect(checkBearer(undefined, [])).toEqual({ required: false, provided: false, valid: true });
  });

  it('makes each token its own owner, a hash that does not contain it; no token is anonymous', () => {
    const tokens = ['token-a', 'token-b'];
    const a = credentialOwner('Bearer token-a', tokens);
    const b = credentialOwner('Bearer token-b', tokens);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('token-a');
    expect(a).toBe(ownerOfToken('token-a'));
    // A token-less server: whatever header arrives, the caller is the one anonymous party.
    expect(credentialOwner('Bearer anything', null)).toBe(ANONYMOUS_OWNER);
    expect(credentialOwner(undefined, null)).toBe(ANONYMOUS_OWNER);
    expect(primaryToken(tokens)).toBe('token-a');
    expect(primaryToken('solo')).toBe('solo');
    expect(primaryToken(null)).toBeNull();
  });
});
