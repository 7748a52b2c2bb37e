/**
 * What the chat page POSTs besides the conversation: the run input typed on the page only where
 * the server takes it. A plain `weft serve` takes none (`--chat-client-overrides`), and answered
 * every message sent with typed input 403 before.
 */
import { describe, expect, it } from 'vitest';
import { turnExtras } from './chat-api.ts';

const typed = { apiBase: 'http://127.0.0.1:4000' };

describe('a chat message request', () => {
  it('leaves the typed input out where the server takes none', () => {
    expect(turnExtras(typed, [], undefined)).toEqual({});
    expect(turnExtras(typed, ['fixtures', 'backend'], undefined)).toEqual({});
  });

  it('sends the typed input where the server takes it, or while it has not said yet', () => {
    expect(turnExtras(typed, ['input'], undefined)).toEqual({ input: typed });
    expect(turnExtras(typed, null, undefined)).toEqual({ input: typed });
  });

  it('sends no input field when nothing was typed, whatever the server takes', () => {
    expect(turnExtras({}, ['input'], undefined)).toEqual({});
    expect(turnExtras({}, null, undefined)).toEqual({});
  });

  it("passes the testing hook's fixtures as they are set", () => {
    const fixtures = { answer: [{ text: 'recorded' }] };
    expect(turnExtras({}, [], fixtures)).toEqual({ fixtures });
  });
});
