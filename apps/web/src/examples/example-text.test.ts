import { describe, expect, it } from 'vitest';
import { listOfIds, oneLine } from './example-text.ts';

describe('oneLine', () => {
  it('keeps the first sentence when it fits', () => {
    expect(oneLine('Classifies a ticket. Then drafts a reply.')).toBe('Classifies a ticket.');
  });

  it('cuts a long sentence at a word, with an ellipsis', () => {
    const line = oneLine('An agent loop over several turns with three kinds of flow tools and more words', 40);
    expect(line).toBe('An agent loop over several turns with…');
    expect(line.length).toBeLessThanOrEqual(40);
  });

  it('folds whitespace and keeps a description without a full stop', () => {
    expect(oneLine('  Builds   a list\nof orders ')).toBe('Builds a list of orders');
  });
});

describe('listOfIds', () => {
  it('joins ids the way a sentence does', () => {
    expect(listOfIds([])).toBe('');
    expect(listOfIds(['a'])).toBe('a');
    expect(listOfIds(['a', 'b', 'c'])).toBe('a, b and c');
  });
});
