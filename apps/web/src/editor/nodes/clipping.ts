/**
 * Where a node clips its content. Every `overflow` box is a clip in Chromium's paint property
 * tree, and every frame of a pan re-layerizes the whole page's paint (the background and the
 * minimap repaint as the view moves). With three clips per node, a 100-step flow panned whole on
 * screen spent about 1.9× the bare canvas's time re-layerizing (bench/editor.ts, a trace of the
 * pan; 0.78× its fps, 0.87× without the clips). So a line gets its ellipsis only when it may not
 * fit, and a node clips only when it shows run content that can outgrow it (streamed text, tool
 * calls, an approval, run marks); a step as drawn while editing always fits its box.
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
