/**
 * A WEFT_PRICES file that cannot be used: every price question still answers, from the tables
 * alone; the problem is reported once, naming the file and the field, at start-up when asked;
 * a file fixed later takes effect, and a new problem is reported again.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type PriceConfigError, reportPriceProblems } from './price-overrides.ts';
import { costOf, costsOfRun, pricer } from './pricing.ts';

// gpt-4o-mini in the tables: $0.15 per million input tokens, $0.60 per million output tokens.
const tablePrice = (1_000_000 * 0.15 + 100_000 * 0.6) / 1e6;
const turn = { model: 'openai:gpt-4o-mini', inputTokens: 1_000_000, outputTokens: 100_000 };

const dir = mkdtempSync(join(tmpdir(), 'weft-price-overrides-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let written = 0;
/** Writes the file with a modification time of its own, so a rewrite within the same tick is seen. */
function write(file: string, doc: unknown): void {
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  const at = new Date(Date.UTC(2024, 0, 1) + ++written * 1000);
  utimesSync(file, at, at);
}

let reported: { problem: PriceConfigError; line: string }[] = [];
beforeEach(() => {
  reported = [];
  reportPriceProblems((problem, line) => reported.push({ problem, line }), {});
});

describe('a prices file that cannot be used', () => {
  const badDir = join(dir, 'a-directory.json');
  mkdirSync(badDir);
  it.each([
    ['not JSON', 'not-json.json', '{ "openai:gpt-4o-mini": ', '', /: not JSON \(/],
    [
      'a field of the wrong type',
      'wrong-field.json',
      { 'openai:gpt-4o-mini': { inputPerMillion: 'cheap', outputPerMillion: 1 } },
      '"openai:gpt-4o-mini".inputPerMillion',
      /"openai:gpt-4o-mini"\.inputPerMillion: .*number/,
    ],
    ['the wrong shape', 'array.json', [1, 2], '', /record|object/],
    ['a directory', 'a-directory.json', null, '', /: is a directory/],
    ['missing', 'missing.json', null, '', /: cannot be read \(ENOENT/],
  ])(
    '(%s) leaves every price to the tables, and is reported once naming the file and field',
    async (_what, name, doc, field, message) => {
      const file = join(dir, name);
      if (doc !== null) write(file, doc);
      const env = { WEFT_PRICES: file };
      expect(await costOf([turn], { env })).toEqual({ usd: expect.closeTo(tablePrice, 12), unpriced: [] });
      expect((await pricer({ env }))(turn)).toMatchObject({ kind: 'priced', source: 'table' });
      await costsOfRun({ steps: {}, order: [] } as never, null, { env });
      expect(reported).toHaveLength(1);
      const [{ problem, line }] = reported as [(typeof reported)[0]];
      expect(problem.file).toBe(file);
      expect(problem.field).toBe(field);
      expect(line).toContain(`WEFT_PRICES file ${file}: `);
      expect(line).toMatch(message);
      expect(line).toContain('pricing with the built-in tables');
    },
  );

  it('is reported at start-up, before any price is asked for', () => {
    const file = join(dir, 'startup.json');
    write(file, 'nope');
    reportPriceProblems((problem, line) => reported.push({ problem, line }), { WEFT_PRICES: file });
    expect(reported.map((entry) => entry.problem.file)).toEqual([file]);
  });

  it('takes effect once fixed, and a later problem is reported again, each distinct one once', async () => {
    const file = join(dir, 'edited.json');
    const env = { WEFT_PRICES: file };
    write(file, '{ broken');
    expect((await costOf([turn], { env })).usd).toBeCloseTo(tablePrice, 12);
    write(file, { 'openai:gpt-4o-mini': { inputPerMillion: 'x', outputPerMillion: 0 } });
    expect((await costOf([turn], { env })).usd).toBeCloseTo(tablePrice, 12);
    expect((await costOf([turn], { env })).usd).toBeCloseTo(tablePrice, 12);
    expect(reported.map((entry) => entry.problem.field)).toEqual(['', '"openai:gpt-4o-mini".inputPerMillion']);

    write(file, { 'openai:gpt-4o-mini': { inputPerMillion: 2, outputPerMillion: 0 } });
    expect((await costOf([turn], { env })).usd).toBe(2);
    expect(reported).toHaveLength(2);

    write(file, '{ broken');
    expect((await costOf([turn], { env })).usd).toBeCloseTo(tablePrice, 12);
    expect(reported.map((entry) => entry.problem.field)).toEqual(['', '"openai:gpt-4o-mini".inputPerMillion', '']);
  });
});
