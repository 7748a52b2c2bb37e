/**
 * Where a node clips its content. Every `overflow` box is a clip in Chromium's paint property
 * tree, and every frame of a pan re-layerizes the whole page's paint (the background and the
 * minimap repaint as the view moves): with three clips per node, that took half of each frame
 * of a 100-step flow panned whole on screen (bench/editor.ts: 0.78× the bare canvas's fps with
 * them, about 0.95× without). So a line gets its ellipsis only when it may not fit, and a node
 * clips only when it shows run content that can outgrow it (streamed text, tool calls, an
 * approval, run marks); a step as drawn while editing always fits its box.
 */

/**
 * Characters that fit one line of a step's 158 px content box in the narrowest case: the id at
 * 12 px monospace (about 7.2 px a character), a model at 11 px beside its `mock` pill.
 */
const FITS = { id: 18, model: 16 } as const;

/** `base`, plus `ellipsis` (overflow hidden, text-overflow ellipsis) when `text` may not fit. */
export function lineClass(base: string, kind: keyof typeof FITS, text: string): string {
  return text.length > FITS[kind] ? `${base} ellipsis` : base;
}

/** Whether a step's box must clip: it shows run content whose height is not bounded by itself. */
export function showsRunContent(live: {
  text: string;
  toolCalls: string;
  waiting: string | null;
  reused: unknown;
  mark: unknown;
}): boolean {
  return live.text !== '' || live.toolCalls !== '' || live.waiting !== null || Boolean(live.reused || live.mark);
}
