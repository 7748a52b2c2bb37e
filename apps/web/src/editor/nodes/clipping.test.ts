import { describe, expect, it } from 'vitest';
import { lineClass, showsRunContent } from './clipping.ts';

const EDITING = { text: '', toolCalls: '', waiting: null, reused: null, mark: null };

describe('node clipping', () => {
  it.each([
    ['id', 'fetch_page', 'wf-id'],
    ['id', 'x'.repeat(18), 'wf-id'],
    ['id', 'x'.repeat(19), 'wf-id ellipsis'],
    ['model', 'mock:gpt-4o-mini', 'wf-id'],
    ['model', 'openai:gpt-4o-mini', 'wf-id ellipsis'],
  ] as const)('a %s of %j gets class %j', (kind, text, expected) => {
    expect(lineClass('wf-id', kind, text)).toBe(expected);
  });

  it.each([
    ['a step as drawn while editing', EDITING, false],
    ['streamed text', { ...EDITING, text: 'Solar capacity grew' }, true],
    ['tool calls', { ...EDITING, toolCalls: 'fetch_page' }, true],
    ['an approval waiting', { ...EDITING, waiting: 'ok' }, true],
    ['reused checkpoints', { ...EDITING, reused: 'all' }, true],
    ['a comparison mark', { ...EDITING, mark: 'changed' }, true],
  ] as const)('%s: clips %s', (_, live, expected) => {
    expect(showsRunContent(live)).toBe(expected);
  });
});
