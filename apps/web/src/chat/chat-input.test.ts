import { describe, expect, it } from 'vitest';
import { chatInputFields, chatInputValue, implicitMessageField, messageInputOf } from './chat-input.ts';

const flow = {
  input: {
    type: 'object',
    properties: {
      messages: { type: 'array' },
      question: { type: 'string' },
      apiBase: { type: 'string', description: 'Base URL' },
      limit: { type: 'integer' },
      strict: { type: 'boolean' },
      filters: { type: 'object' },
    },
    required: ['question', 'apiBase'],
  },
};

describe('the chat input', () => {
  it('offers every input property but the conversation and the message input', () => {
    expect(chatInputFields(flow).map((field) => field.name)).toEqual([
      'question',
      'apiBase',
      'limit',
      'strict',
      'filters',
    ]);
    const named = { ...flow, chat: { messageInput: 'question' } };
    expect(messageInputOf(named)).toBe('question');
    expect(chatInputFields(named).map((field) => field.name)).not.toContain('question');
    expect(chatInputFields({ input: { type: 'string' } })).toEqual([]);
    expect(chatInputFields(null)).toEqual([]);
  });

  it('sends the fields with a value, typed as the schema says', () => {
    const fields = chatInputFields(flow);
    expect(
      chatInputValue(fields, {
        question: '',
        apiBase: 'http://x',
        limit: '3',
        strict: 'true',
        filters: '{"a":1}',
      }),
    ).toEqual({ apiBase: 'http://x', limit: 3, strict: true, filters: { a: 1 } });
    // What does not parse goes as typed: the server's schema check says what is wrong.
    expect(chatInputValue(fields, { limit: 'many', filters: '{' })).toEqual({ limit: 'many', filters: '{' });
  });

  it('knows which field the message fills when the flow names none', () => {
    const fields = chatInputFields(flow);
    expect(implicitMessageField(fields, { apiBase: 'http://x' }, null)).toBe('question');
    expect(implicitMessageField(fields, {}, null)).toBeNull();
    expect(implicitMessageField(fields, { apiBase: 'http://x' }, 'question')).toBeNull();
  });
});
