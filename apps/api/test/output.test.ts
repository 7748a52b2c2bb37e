import { describe, expect, it } from 'vitest';
import { parseApproveFlags, parseVerdict } from '../src/cli/approvals.ts';
import { parseJson } from '../src/cli/files.ts';
import { formatDuration, preview, redact } from '../src/cli/output.ts';
import { treeStats } from '../src/cli/report.ts';
import { shellQuote } from '../src/cli/tree.ts';

describe('cli helpers', () => {
  it('never prints secrets from the env or inside URLs', () => {
    const env = { OPENAI_API_KEY: 'sk-secret-123', DATABASE_URL: 'postgres://u:pw@db/weft' };
    expect(redact('bad key sk-secret-123 for postgres://u:pw@db/weft', env)).toBe(
      'bad key <OPENAI_API_KEY> for <DATABASE_URL>',
    );
    expect(redact('connect postgres://me:hunter2@host:5432/x failed', {})).toBe(
      'connect postgres://me:***@host:5432/x failed',
    );
  });

  it('says where JSON is malformed', () => {
    expect(() => parseJson('{\n  "a": 1,\n  "b" 2\n}', 'x.json')).toThrow(
      /x\.json is not valid JSON \(line 3, column 7\)/,
    );
    expect(() => parseJson('{"a": [1, 2', 'input')).toThrow(/input is not valid JSON \(line 1, column \d+\)/);
  });

  it('formats durations, previews and shell words', () => {
    expect([formatDuration(12), formatDuration(1234), formatDuration(65_000), formatDuration(null)]).toEqual([
      '12ms',
      '1.23s',
      '1m05s',
      '—',
    ]);
    expect(preview({ a: 'x'.repeat(100) }, 20)).toHaveLength(20);
    expect(preview('two\nlines')).toBe('two ⏎ lines');
    expect(shellQuote('run_1~sub')).toBe('run_1~sub');
    expect(shellQuote('each[0]/ok')).toBe("'each[0]/ok'");
  });

  it('parses decisions', () => {
    expect([parseVerdict('yes'), parseVerdict('N'), parseVerdict('maybe')]).toEqual([true, false, undefined]);
    expect(parseApproveFlags(['ok=yes', 'each[0]/check=no'], '')).toEqual(
      new Map([
        ['ok', true],
        ['each[0]/check', false],
      ]),
    );
    expect(() => parseApproveFlags(['ok'], '')).toThrow(/<stepId>=yes\|no/);
  });

  it('counts steps and tokens over a run tree, not model turns as steps', () => {
    const step = (stepType: string, status: string, usage?: object) => ({ stepType, status, usage: usage ?? null });
    const stats = treeStats([
      {
        startedAt: 100,
        endedAt: 350,
        steps: {
          a: step('transform', 'completed'),
          agent: step('llm', 'completed', { inputTokens: 9, outputTokens: 9 }),
          'agent/llm#1': step('model-turn', 'completed', { inputTokens: 2, outputTokens: 3 }),
          'agent/tool#1.0': step('tool-call', 'completed'),
          'agent/llm#2': step('model-turn', 'completed', { inputTokens: 4, outputTokens: 1 }),
        },
      },
      { startedAt: 200, endedAt: 300, steps: { b: step('fail', 'failed') } },
    ] as never);
    expect(stats).toEqual({ steps: 2, failedSteps: 1, inputTokens: 6, outputTokens: 4, durationMs: 250 });
  });
});
