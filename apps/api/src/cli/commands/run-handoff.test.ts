/** `weft run --handoff <engine>@<point>`: what parses, and the error that names the flag. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../output.ts';
import { parseHandoff } from './run.ts';

describe('parseHandoff', () => {
  it.each([
    ['temporal@first-tool-call', { to: 'temporal', at: 'first-tool-call' }],
    ['inngest@agent', { to: 'inngest', at: 'agent' }],
  ])('%s', (text, parsed) => {
    expect(parseHandoff(text)).toEqual(parsed);
  });

  it.each(['temporal', 'temporal@', '@first-tool-call', 'inprocess@first-tool-call', 'kafka@agent'])(
    'refuses %s, naming the flag and what it takes',
    (text) => {
      expect(() => parseHandoff(text)).toThrow(UsageError);
      expect(() => parseHandoff(text)).toThrow(
        `--handoff must be <engine>@<point>: engine temporal or inngest, point first-tool-call or a step id (got '${text}')`,
      );
    },
  );
});
