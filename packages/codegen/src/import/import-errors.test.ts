import { describe, expect, it } from 'vitest';
import { importFlow } from './import-flow.ts';

/** A module around a flow body: the body starts on line 4. */
function flowModule(body: string, extra = ''): string {
  return `import { defineFlow, template } from '@weft/engine';
${extra}
export default defineFlow({ id: 'demo', name: 'Demo' }, async ({ input, step, steps }) => {
${body}
});
`;
}

const CASES: { name: string; source: string; line: number; message: string }[] = [
  {
    name: 'a JavaScript loop over the clock',
    source: flowModule(
      `  while (Date.now() < input.deadline) {\n    await step.sleep('nap', { duration: '1s' });\n  }`,
    ),
    line: 4,
    message: 'JavaScript loops cannot be imported',
  },
  {
    name: 'the clock in an expression',
    source: flowModule(`  await step.transform('now', { value: Date.now() });`),
    line: 4,
    message: 'Date.now() is not available in a flow expression',
  },
  {
    name: 'a step call inside try/catch',
    source: flowModule(
      `  await step.sleep('a', { duration: '1s' });\n  try {\n    await step.fail('b', { message: 'x' });\n  } catch {}`,
    ),
    line: 5,
    message: 'try/catch cannot be imported',
  },
  {
    name: 'a dynamic step id',
    source: flowModule(`  await step.transform(input.id, { value: 1 });`),
    line: 4,
    message: 'the step id must be a string literal',
  },
  {
    name: 'an unknown step method',
    source: flowModule(`  await step.email('send', { to: input.to });`),
    line: 4,
    message: 'step.email is not a step type',
  },
  {
    name: 'an unknown config field',
    source: flowModule(`  await step.sleep('nap', { duration: '1s', jitter: true });`),
    line: 4,
    message: "step.sleep has no field 'jitter'",
  },
  {
    name: 'a variable holding a step result',
    source: flowModule(`  const x = await step.transform('a', { value: 1 });`),
    line: 4,
    message: 'variables cannot be imported',
  },
  {
    name: 'an unknown name in an expression',
    source: flowModule(`  await step.transform('a', { value: Math.random() });`),
    line: 4,
    message: 'Math.random() is not available',
  },
  {
    name: 'a secret read from the environment',
    source: flowModule(
      `  await step.http('call', {\n    url: 'https://api.example',\n    headers: { authorization: process.env.API_KEY ?? '' },\n  });`,
    ),
    line: 6,
    message: 'a flow cannot read the environment',
  },
  {
    name: 'a nested body returning a value instead of a step',
    source: flowModule(
      `  await step.map('each', { items: input.list, steps: async ({ step, item }) => {\n    await step.transform('t', { value: item });\n    return 1;\n  } });`,
    ),
    line: 6,
    message: 'a nested body can only return its last step',
  },
  {
    name: 'a step that is not awaited',
    source: flowModule(`  step.sleep('nap', { duration: '1s' });`),
    line: 4,
    message: 'await the step',
  },
  {
    name: 'a code function with renamed parameters',
    source: flowModule(
      `  await step.code('c', { source: count, args: {} });`,
      'function count(a: any) {\n  return a.n;\n}\n',
    ),
    line: 2,
    message: 'a code function takes (args, input, steps)',
  },
  {
    name: 'other module code',
    source: flowModule(`  await step.sleep('nap', { duration: '1s' });`, 'console.log("hi");\n'),
    line: 2,
    message: 'only imports, types',
  },
  {
    name: 'an IR validation error (a step reading one that has not run)',
    source: flowModule(
      `  await step.transform('a', { value: steps.later.output });\n  await step.transform('later', { value: 1 });`,
    ),
    line: 4,
    message: 'later',
  },
  {
    name: 'a TypeScript syntax error',
    source: flowModule(`  await step.sleep('nap', { duration: '1s' );`),
    line: 4,
    message: "',' expected",
  },
  {
    name: 'no flow at all',
    source: `export const x = 1;\n`,
    line: 1,
    message: 'only imports, types',
  },
];

describe('importFlow refuses what the IR cannot express', () => {
  it.each(CASES)('$name → line $line', ({ source, line, message }) => {
    const result = importFlow(source, 'flow.ts');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect('flow' in result).toBe(false);
    const hit = result.errors.find((error) => error.message.includes(message));
    expect(hit, JSON.stringify(result.errors)).toBeDefined();
    expect(hit!.line).toBe(line);
    expect(hit!.column).toBeGreaterThan(0);
  });

  it('accepts hand-written variants of the exported shape', () => {
    const result = importFlow(
      flowModule(
        [
          '  // Say hi',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source with a template literal.
          "  await step.tool('hi', 'greet', { who: `${input.name}!` });",
          "  await step.sleep('nap', '1s');",
          "  return step.parallel('fan', { branches: { a: async ({ step }) => step.transform('x', { value: input.n == 2 }) } });",
        ].join('\n'),
      ),
      'flow.ts',
      { hostTools: ['greet'] },
    );
    expect(result).toMatchObject({
      ok: true,
      flow: {
        steps: [
          { id: 'hi', name: 'Say hi', type: 'tool', tool: 'greet', args: { who: '{{ input.name }}!' } },
          { id: 'nap', type: 'sleep', duration: '1s' },
          { id: 'fan', type: 'parallel', branches: { a: [{ id: 'x', type: 'transform', value: '=input.n == 2' }] } },
        ],
      },
    });
  });
});
