/** How a gallery card words an example: its description in one line. */

/**
 * The description's first sentence, cut at a word and ended with `…` when longer than `max`
 * characters: a card holds one line on what the example shows, the full text is its tooltip.
 */
export function oneLine(description: string, max = 96): string {
  const text = description.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(text)?.[1] ?? text;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const atWord = cut.slice(0, Math.max(cut.lastIndexOf(' '), 0)) || cut;
  return `${atWord.replace(/[\s,;:(—-]+$/, '')}…`;
}

/** `saved` ids as the toast lists them: `research-agent and summarize-text`. */
export function listOfIds(ids: readonly string[]): string {
  if (ids.length <= 1) return ids.join('');
  return `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
}
