/**
 * The printer keeps an expression's meaning with the fewest parentheses. Random flat chains that
 * mix every operator, with parenthesized groups, unary operators and ternaries as operands, are
 * parsed by the engine, printed as TypeScript, written to a module and imported: wherever the
 * engine gives a value, the printed TypeScript gives the same one. Printed back in the IR dialect
 * (spaced and compact), each reads as the same tree.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileExpression, type ExprNode, type Json } from '@weft/engine';
import { afterAll, expect, it } from 'vitest';
import { printExpression } from './expression.ts';

const INPUT = { a: 3, b: -2, t: true, f: false, z: null, s: 'ab' };
const NULLISH = ['input.z', 'input.missing', 'input.a'];
/** mulberry32: the same cases on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Flat chains across precedence levels, typed so the engine mostly gives a value (it refuses
 * `true + 1` where JavaScript coerces): `2 * input.a - 3 ** 2 < input.b + 1 == true && !x || …`.
 */
function generate(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chain = (operand: () => { text: string; unary: boolean }, operators: string[], most: number) => {
    let { text, unary } = operand();
    for (let terms = Math.floor(next() * most); terms > 0; terms--) {
      // A unary operand cannot be the base of `**`.
      const operator = pick(unary ? operators.filter((op) => op !== '**') : operators);
      const right = operand();
      text += ` ${operator} ${right.text}`;
      unary = right.unary;
    }
    return text;
  };
  const plain = (text: string) => ({ text, unary: false });
  const number = (depth: number): string =>
    chain(
      () => {
        const roll = next();
        if (depth === 0 || roll < 0.6) return plain(pick(['0', '1', '2', '3', '7', 'input.a', 'input.b']));
        if (roll < 0.75) return { text: `${pick(['-', '- ', '+'])}${pick(['2', 'input.a', 'input.b'])}`, unary: true };
        if (roll < 0.9) return plain(`(${number(depth - 1)})`);
        if (roll < 0.95) return plain(`(${boolean(depth - 1)} ? ${number(depth - 1)} : ${number(depth - 1)})`);
        return plain(`(input.z ?? ${number(depth - 1)})`);
      },
      ['+', '-', '*', '/', '%', '**'],
      8,
    );
  const comparison = (depth: number) =>
    `${number(depth)} ${pick(['<', '<=', '>', '>=', '==', '!=', '===', '!=='])} ${number(depth)}`;
  const boolean = (depth: number): string =>
    chain(
      () => {
        const roll = next();
        if (depth === 0 || roll < 0.25) return plain(pick(['true', 'input.t', 'input.f']));
        if (roll < 0.5) return plain(comparison(depth));
        // The IR's `==` is strict, except that null equals a missing value.
        if (roll < 0.6) return plain(`${pick(NULLISH)} ${pick(['==', '!='])} ${pick([...NULLISH, 'null'])}`);
        if (roll < 0.7)
          return plain(`${comparison(depth)} ${pick(['==', '!=', '===', '!=='])} ${pick(['true', 'input.f'])}`);
        if (roll < 0.8) return { text: `!${pick(['input.t', `(${boolean(depth - 1)})`])}`, unary: true };
        if (roll < 0.9) return plain(`(${boolean(depth - 1)})`);
        return plain(`(input.z ?? ${boolean(depth - 1)})`);
      },
      ['&&', '||'],
      6,
    );
  const text = (depth: number) => chain(() => plain(pick(['input.s', "'x'", '1', `(${number(depth - 1)})`])), ['+'], 4);
  return pick([number, boolean, boolean, text, (depth: number) => `input.z ?? ${number(depth)} ?? 1`])(2);
}

const cases: string[] = [];
for (const next = random(27); cases.length < 600; ) {
  const source = generate(next);
  try {
    compileExpression(source);
    cases.push(source);
  } catch {}
}

const folder = fileURLToPath(new URL(`../../.tmp-expression-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Spans dropped, so trees compare by shape (and `raw` kept out: the printer writes values). */
function shape(node: ExprNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value) => (['start', 'end', 'raw'].includes(key) ? undefined : value)));
}

it('printed TypeScript evaluates as the engine does', async () => {
  const printed = cases.map((source) => printExpression(compileExpression(source).ast, { dialect: 'ts' }));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'cases.ts');
  writeFileSync(
    file,
    [
      "import { eq, ne } from '@weft/engine';",
      'export const cases = [',
      ...printed.map(
        (text) => `  (input: any) => { try { return { value: ${text} }; } catch { return { threw: true }; } },`,
      ),
      '];',
    ].join('\n'),
  );
  const module = (await import(pathToFileURL(file).href)) as { cases: ((input: unknown) => { value?: unknown })[] };
  let compared = 0;
  for (const [index, source] of cases.entries()) {
    let value: unknown;
    try {
      value = compileExpression(source).evaluate({ input: INPUT as Json, steps: {} });
    } catch {
      continue; // The IR refuses to coerce where JavaScript would.
    }
    compared++;
    expect(module.cases[index]!(INPUT), `${source}\n  printed: ${printed[index]}`).toEqual({ value });
  }
  // Most cases give a value, so most are compared.
  expect(compared).toBeGreaterThan(450);
});

it('printed back as the IR, spaced or compact, reads as the same tree', () => {
  for (const source of cases) {
    const { ast } = compileExpression(source);
    for (const compact of [false, true]) {
      const printed = printExpression(ast, { dialect: 'ir', compact });
      expect(shape(compileExpression(printed).ast), `${source}\n  printed: ${printed}`).toEqual(shape(ast));
    }
  }
});

/**
 * Calls `fn` deep in the stack, with some 1,000 frames of this helper's size left: enough for
 * a printer that loops along a chain, far too few for one that recurses per term (how much
 * stack a run starts with varies; this leaves the same little whatever it is).
 */
function withLittleStack<T>(fn: () => T): T {
  let deepest = 0;
  const descend = (depth: number, limit: number): T | undefined => {
    deepest = depth;
    return depth === limit ? fn() : descend(depth + 1, limit);
  };
  try {
    descend(0, Number.POSITIVE_INFINITY);
  } catch {}
  return descend(0, deepest - 1_000)!;
}

it('a chain of 5,000 terms prints with little stack', () => {
  const source = `1${'+1'.repeat(4_999)}`;
  const { ast } = compileExpression(source);
  expect(withLittleStack(() => printExpression(ast, { dialect: 'ts' }))).toBe(`1${' + 1'.repeat(4_999)}`);
  expect(withLittleStack(() => printExpression(ast, { dialect: 'ir', compact: true }))).toBe(source);
  // `- -1` stays two minus signs: `--` is a token of its own.
  expect(printExpression(compileExpression('1- -1- +1').ast, { dialect: 'ir', compact: true })).toBe('1- -1- +1');
});
