import { describe, expect, it } from 'vitest';
import { formatTestCase, parseTestCase, readTestCase, type TestCase, TestCaseInvalidError } from './case-format.ts';

const valid: TestCase = {
  weftTest: 1,
  name: 'pricing-happy',
  flow: { id: 'pricing', version: 2 },
  match: ['steps', 'output'],
  input: { qty: 2, item: 'tea' },
  expect: { steps: ['ask', 'ask/llm#1', 'compute'], output: { total: 6 } },
  approvals: {
    gate: { approved: true, by: 'ana', comment: null, at: '2025-01-02T03:04:05.000Z' },
    window: { timedOut: true, at: '2025-01-02T03:04:06.000Z' },
  },
  recorded: [
    {
      stepId: 'compute',
      kind: 'code',
      status: 'completed',
      inputHash: 'code:abc',
      output: { total: 6 },
      error: null,
    },
  ],
  fromRun: 'run_1',
};

function problems(doc: unknown): string {
  try {
    parseTestCase(doc, 'tests/pricing-happy.json');
  } catch (error) {
    expect(error).toBeInstanceOf(TestCaseInvalidError);
    return (error as Error).message;
  }
  throw new Error('expected the case to be refused');
}

describe('the test case format', () => {
  it('round-trips through its file text, in a fixed field order with 2-space indent', () => {
    const text = formatTestCase(valid);
    expect(readTestCase(text, 'x.json')).toEqual(valid);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'weftTest',
      'name',
      'flow',
      'match',
      'input',
      'expect',
      'approvals',
      'recorded',
      'fromRun',
    ]);
    expect(text).toContain('\n  "name": "pricing-happy",\n');
    // Data keeps the order the run produced (a template may interpolate it as is).
    expect(Object.keys(JSON.parse(text).input)).toEqual(['qty', 'item']);
    // Saving the same case twice gives the same bytes, however its fields were assembled.
    const shuffled = Object.fromEntries(Object.entries(valid).reverse());
    shuffled.expect = { output: { total: 6 }, steps: valid.expect.steps };
    expect(formatTestCase(shuffled as unknown as TestCase)).toBe(text);
  });

  it('names the file and the field of each problem', () => {
    expect(problems({ ...valid, weftTest: 2 })).toBe(
      'tests/pricing-happy.json is not a valid test case: weftTest: must be 1 (the test case format version)',
    );
    expect(problems({ ...valid, match: ['output', 'everything'] })).toMatch(
      /^tests\/pricing-happy\.json is not a valid test case: match\[1\]: /,
    );
    expect(problems({ ...valid, recorded: [{ ...valid.recorded[0], status: 'done' }] })).toMatch(
      /recorded\[0\]\.status: /,
    );
    expect(problems({ ...valid, approvals: { 'each[0]/ok': { approved: 'yes' } } })).toContain(
      'approvals["each[0]/ok"]',
    );
    const { flow: _flow, ...noFlow } = valid;
    expect(problems(noFlow)).toContain('flow: ');
    expect(problems({ ...valid, surprise: 1 })).toContain('surprise');
  });

  it('requires what match asks to compare', () => {
    expect(problems({ ...valid, match: ['output-schema'] })).toContain(
      'expect.outputSchema: is required: match lists "output-schema"',
    );
    expect(problems({ ...valid, match: ['steps'], expect: { output: 1 } })).toContain(
      'expect.steps: is required: match lists "steps"',
    );
    expect(problems({ ...valid, match: [] })).toContain('match: name at least one of steps, output, output-schema');
    expect(problems({ ...valid, match: ['output', 'output'] })).toContain('match: lists a kind twice');
  });

  it('accepts an output of null and a case without approvals or fixtures', () => {
    const { approvals: _approvals, ...rest } = valid;
    const parsed = parseTestCase({ ...rest, expect: { steps: [], output: null } }, 'x.json');
    expect(parsed.approvals).toEqual({});
    expect(parsed.expect.output).toBeNull();
  });

  it('keeps data exactly as read, own __proto__ keys included', () => {
    const text = formatTestCase(valid).replace(
      '"output": {\n        "total": 6',
      '"output": {\n        "__proto__": 1,\n        "total": 6',
    );
    const parsed = readTestCase(text, 'x.json');
    const output = parsed.recorded[0]?.output as Record<string, unknown>;
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
  });

  it('says which file is not JSON', () => {
    expect(() => readTestCase('{ "weftTest": 1,', 'tests/broken.json')).toThrow(
      /^tests\/broken\.json is not a valid test case: not JSON \(/,
    );
  });
});
