/**
 * What a chat client may choose besides the conversation, which only the operator should allow:
 *
 * - `fixtures`: recorded model turns, which make the run call any tool with the client's
 *   arguments;
 * - `backend`: where the run executes (Temporal, Inngest, in-process);
 * - `input`: the rest of the run input (every property but the conversation and its message).
 *
 * Off unless enabled (`weft serve --chat-client-overrides`, `WEFT_CHAT_CLIENT_OVERRIDES`):
 * a request that sets one anyway is refused with 403 naming it. `scripts/start.sh` (the local
 * demo) enables all three.
 */
// No imports: `weft serve` reads the setting before it loads the server.

export const CHAT_CLIENT_OVERRIDES = ['fixtures', 'backend', 'input'] as const;
export type ChatClientOverride = (typeof CHAT_CLIENT_OVERRIDES)[number];
export type ChatClientOverrides = ReadonlySet<ChatClientOverride>;

export const NO_CHAT_CLIENT_OVERRIDES: ChatClientOverrides = new Set();

export const CHAT_CLIENT_OVERRIDES_ENV = 'WEFT_CHAT_CLIENT_OVERRIDES';

/**
 * The setting's text: names separated by commas or spaces (`fixtures,backend,input`), `all`, or
 * `none` / empty. Throws naming an unknown word and what is accepted.
 */
export function parseChatClientOverrides(text: string | undefined): ChatClientOverrides {
  const words = (text ?? '')
    .split(/[\s,]+/)
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word !== '');
  const chosen = new Set<ChatClientOverride>();
  for (const word of words) {
    if (word === 'all') for (const name of CHAT_CLIENT_OVERRIDES) chosen.add(name);
    else if (word === 'none') continue;
    else if ((CHAT_CLIENT_OVERRIDES as readonly string[]).includes(word)) chosen.add(word as ChatClientOverride);
    else
      throw new Error(
        `unknown chat client override '${word}': use any of ${CHAT_CLIENT_OVERRIDES.join(', ')}, or all, or none`,
      );
  }
  return chosen;
}

/** Why the body may not be served (the first field set that the operator did not allow), if so: a 403. */
export function forbiddenOverride(body: unknown, allowed: ChatClientOverrides): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const field = CHAT_CLIENT_OVERRIDES.find((name) => Object.hasOwn(body, name) && !allowed.has(name));
  if (field === undefined) return undefined;
  return (
    `"${field}" may not be set by a chat client on this server ` +
    `(the operator enables it with weft serve --chat-client-overrides ${field}, or ${CHAT_CLIENT_OVERRIDES_ENV}=${field})`
  );
}
