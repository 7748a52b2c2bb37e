/** A language-model stream answering one text, in the shape `MockLanguageModelV4`'s doStream returns. */
export function textStream(text: string, tokens: { input: number; output: number }) {
  return {
    stream: new ReadableStream({
      start(controller) {
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: text });
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: tokens.input, noCache: tokens.input, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: tokens.output, text: tokens.output, reasoning: undefined },
          },
        });
        controller.close();
      },
    }),
  };
}
