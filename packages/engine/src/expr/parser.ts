/**
 * A precedence-climbing parser from tokens to the AST. Everything outside the language is
 * rejected here, with a message that says why: globals and keywords, calls of non-whitelisted
 * functions, forbidden property names, assignment, arrows, `new`, `this`, and so on.
 */
import { ExpressionError } from '../errors.ts';
import {
  type BinaryOperator,
  depthOf,
  EXPR_ROOTS,
  type ExprNode,
  type LogicalOperator,
  type PropertyNode,
  type UnaryOperator,
} from './ast.ts';
import { HELPERS } from './helpers.ts';
import { FORBIDDEN_PROPERTIES, MAX_DEPTH, MAX_SOURCE_LENGTH } from './limits.ts';
import { METHOD_NAMES } from './methods.ts';
import { isVariableName } from './names.ts';
import { type Token, tokenize } from './tokens.ts';

/** Binding power of the binary operators (JavaScript's relative order). */
const PRECEDENCE: ReadonlyMap<string, number> = new Map(
  (
    [
      ['?? ||', 1],
      ['&&', 2],
      ['== != === !==', 3],
      ['< <= > >=', 4],
      ['+ -', 5],
      ['* / %', 6],
      ['**', 7],
    ] as const
  ).flatMap(([ops, precedence]) => ops.split(' ').map((op) => [op, precedence] as const)),
);

const ROOTS: ReadonlySet<string> = new Set(EXPR_ROOTS);
const ROOT_LIST = EXPR_ROOTS.join(', ');
const KEYWORDS: ReadonlySet<string> = new Set(
  'this new function class import export void delete await yield in instanceof let var const super async with debugger throw return if else for while do switch case try catch finally'.split(
    ' ',
  ),
);
const ASSIGNMENTS: ReadonlySet<string> = new Set(
  '= += -= *= /= %= **= <<= >>= >>>= &= |= ^= &&= ||= ??= ++ --'.split(' '),
);

export function parse(src: string): ExprNode {
  if (src.length > MAX_SOURCE_LENGTH) {
    throw new ExpressionError(
      `expression is too long (${src.length} characters; the limit is ${MAX_SOURCE_LENGTH})`,
      src,
      MAX_SOURCE_LENGTH,
    );
  }
  const parser = new Parser(src, tokenize(src));
  const node = parser.parseTop();
  if (depthOf(node) > MAX_DEPTH)
    throw new ExpressionError(`expression is nested too deeply (limit ${MAX_DEPTH})`, src, 0);
  return node;
}

class Parser {
  private readonly src: string;
  private readonly tokens: Token[];
  private pos = 0;
  private depth = 0;
  /** Nodes written inside parentheses (matters for `-a ** b` and mixing `??` with `||`). */
  private readonly parenthesized = new WeakSet<ExprNode>();

  constructor(src: string, tokens: Token[]) {
    this.src = src;
    this.tokens = tokens;
  }

  parseTop(): ExprNode {
    if (this.peek().type === 'eof') this.fail('empty expression', 0);
    const node = this.parseExpression();
    const t = this.peek();
    if (t.type !== 'eof') this.unexpected(t);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  private isPunct(value: string): boolean {
    const t = this.peek();
    return t.type === 'punct' && t.value === value;
  }

  private expect(value: string): Token {
    if (!this.isPunct(value)) this.unexpected(this.peek(), `expected '${value}'`);
    return this.next();
  }

  private fail(message: string, at: number): never {
    throw new ExpressionError(message, this.src, at);
  }

  private unexpected(t: Token, expected?: string): never {
    if (t.type === 'eof') this.fail(`unexpected end of expression${expected ? `; ${expected}` : ''}`, t.start);
    const v = t.value;
    if (t.type === 'punct') {
      if (v === '=>') this.fail('arrow functions are not allowed', t.start);
      if (ASSIGNMENTS.has(v)) this.fail(`assignment is not allowed ('${v}'); compare with === or ==`, t.start);
      if (v === '`') this.fail('template literals are not supported; use + or a {{ }} template', t.start);
      if (v === '/') this.fail('regular expressions are not supported', t.start);
      if (v === ';') this.fail(`unexpected ';': an expression is a single value`, t.start);
      if (v === '...') this.fail('spread (...) is not supported', t.start);
      if (['&', '|', '^', '~', '<<', '>>', '>>>'].includes(v)) this.fail(`operator '${v}' is not supported`, t.start);
    }
    if (t.type === 'name' && KEYWORDS.has(v)) this.fail(`'${v}' is not allowed in expressions`, t.start);
    const shown = t.type === 'str' ? this.src.slice(t.start, t.end) : v;
    this.fail(
      `unexpected ${shown.length > 30 ? `${shown.slice(0, 30)}…` : `'${shown}'`}${expected ? `; ${expected}` : ''}`,
      t.start,
    );
  }

  private parseExpression(): ExprNode {
    if (++this.depth > MAX_DEPTH) this.fail(`expression is nested too deeply (limit ${MAX_DEPTH})`, this.peek().start);
    const test = this.parseBinary(0);
    let node = test;
    if (this.isPunct('?')) {
      this.next();
      const consequent = this.parseExpression();
      this.expect(':');
      const alternate = this.parseExpression();
      node = { type: 'Conditional', test, consequent, alternate, start: test.start, end: alternate.end };
    }
    this.depth--;
    return node;
  }

  private parseBinary(minPrecedence: number): ExprNode {
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      const precedence = t.type === 'punct' ? PRECEDENCE.get(t.value) : undefined;
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.next();
      const op = t.value;
      if (op === '**' && left.type === 'Unary' && !this.parenthesized.has(left)) {
        this.fail(
          `parenthesize the left side of '**' ('(${left.operator === 'typeof' ? 'typeof ' : left.operator}x) ** y')`,
          t.start,
        );
      }
      // `**` is right-associative: its right side recurses, so it counts towards the depth.
      if (op === '**' && ++this.depth > MAX_DEPTH)
        this.fail(`expression is nested too deeply (limit ${MAX_DEPTH})`, t.start);
      const right = this.parseBinary(op === '**' ? precedence : precedence + 1);
      if (op === '**') this.depth--;
      if (op === '&&' || op === '||' || op === '??') {
        this.checkMixing(op, left, t);
        this.checkMixing(op, right, t);
        left = { type: 'Logical', operator: op, left, right, start: left.start, end: right.end };
      } else {
        left = { type: 'Binary', operator: op as BinaryOperator, left, right, start: left.start, end: right.end };
      }
    }
  }

  /** JavaScript refuses `a ?? b || c` without parentheses; so do we. */
  private checkMixing(op: LogicalOperator, operand: ExprNode, t: Token): void {
    if (operand.type !== 'Logical' || this.parenthesized.has(operand)) return;
    if ((op === '??') !== (operand.operator === '??')) {
      this.fail(`cannot mix '??' with '&&' or '||' without parentheses`, t.start);
    }
  }

  private parseUnary(): ExprNode {
    const t = this.peek();
    const op = t.type === 'punct' && (t.value === '!' || t.value === '-' || t.value === '+') ? t.value : undefined;
    if (op !== undefined || (t.type === 'name' && t.value === 'typeof')) {
      if (++this.depth > MAX_DEPTH) this.fail(`expression is nested too deeply (limit ${MAX_DEPTH})`, t.start);
      this.next();
      const argument = this.parseUnary();
      this.depth--;
      const operator = (op ?? 'typeof') as UnaryOperator;
      return { type: 'Unary', operator, argument, start: t.start, end: argument.end };
    }
    return this.parsePostfix();
  }

  private parsePostfix(): ExprNode {
    const start = this.peek().start;
    let node = this.parsePrimary();
    let chain = false;
    for (;;) {
      const t = this.peek();
      if (t.type !== 'punct') break;
      if (t.value === '.' || t.value === '?.') {
        this.next();
        const optional = t.value === '?.';
        chain ||= optional;
        if (optional && this.isPunct('[')) {
          node = this.parseIndex(node, true, start);
          continue;
        }
        if (optional && this.isPunct('(')) this.fail('optional calls (?.()) are not supported', t.start);
        const name = this.next();
        if (name.type !== 'name') this.unexpected(name, 'expected a property name');
        if (this.isPunct('(')) {
          if (!METHOD_NAMES.has(name.value)) {
            this.fail(
              `'${name.value}' is not an allowed method; strings and arrays have: ${[...METHOD_NAMES].join(', ')}`,
              name.start,
            );
          }
          const { args, end } = this.parseArguments();
          node = { type: 'MethodCall', object: node, method: name.value, args, optional, start, end };
          continue;
        }
        this.checkProperty(name.value, name.start);
        node = { type: 'Member', object: node, property: name.value, optional, start, end: name.end };
      } else if (t.value === '[') {
        node = this.parseIndex(node, false, start);
      } else if (t.value === '(') {
        this.fail('only helper functions and string/array methods can be called', t.start);
      } else break;
    }
    return chain ? { type: 'Chain', expression: node, start, end: node.end } : node;
  }

  private parseIndex(object: ExprNode, optional: boolean, start: number): ExprNode {
    this.expect('[');
    const index = this.parseExpression();
    if (index.type === 'Literal' && typeof index.value === 'string') this.checkProperty(index.value, index.start);
    const end = this.expect(']').end;
    return { type: 'Index', object, index, optional, start, end };
  }

  private checkProperty(name: string, at: number): void {
    if (FORBIDDEN_PROPERTIES.has(name)) this.fail(`property '${name}' is not allowed`, at);
  }

  private parseArguments(): { args: ExprNode[]; end: number } {
    return this.parseList('(', ')');
  }

  private parseList(open: string, close: string): { args: ExprNode[]; end: number } {
    this.expect(open);
    const args: ExprNode[] = [];
    while (!this.isPunct(close)) {
      args.push(this.parseExpression());
      if (!this.isPunct(close)) this.expect(',');
    }
    return { args, end: this.next().end };
  }

  private parsePrimary(): ExprNode {
    const t = this.peek();
    switch (t.type) {
      case 'num':
        this.next();
        return { type: 'Literal', value: t.number, raw: t.value, start: t.start, end: t.end };
      case 'str':
        this.next();
        return { type: 'Literal', value: t.value, raw: this.src.slice(t.start, t.end), start: t.start, end: t.end };
      case 'name':
        return this.parseName();
      case 'punct':
        if (t.value === '(') {
          this.next();
          const inner = this.parseExpression();
          this.expect(')');
          this.parenthesized.add(inner);
          return inner;
        }
        if (t.value === '[') {
          const { args, end } = this.parseList('[', ']');
          return { type: 'Array', elements: args, start: t.start, end };
        }
        if (t.value === '{') return this.parseObject();
        return this.unexpected(t);
      default:
        return this.unexpected(t);
    }
  }

  private parseName(): ExprNode {
    const t = this.next();
    const name = t.value;
    const span = { start: t.start, end: t.end };
    if (name === 'true' || name === 'false') return { type: 'Literal', value: name === 'true', raw: name, ...span };
    if (name === 'null') return { type: 'Literal', value: null, raw: name, ...span };
    const called = this.isPunct('(');
    const helper = HELPERS.get(name);
    if (helper !== undefined) {
      if (!called) this.fail(`'${name}' is a function; call it like ${helper.signature}`, t.start);
      const { args, end } = this.parseArguments();
      if (args.length < helper.min || args.length > helper.max) {
        const expected =
          helper.min === helper.max
            ? `${helper.min}`
            : helper.max === Number.POSITIVE_INFINITY
              ? `at least ${helper.min}`
              : `${helper.min} to ${helper.max}`;
        this.fail(
          `${name}() takes ${expected} argument${expected === '1' ? '' : 's'}, got ${args.length}: ${helper.signature}`,
          t.start,
        );
      }
      return { type: 'Call', callee: name, args, start: t.start, end };
    }
    if (KEYWORDS.has(name)) this.unexpected(t);
    if (name === 'undefined') {
      this.fail("'undefined' is not a name here; use null, x ?? fallback, or typeof x === 'undefined'", t.start);
    }
    if (ROOTS.has(name) || isVariableName(name)) {
      if (called) this.fail(`'${name}' is not ${ROOTS.has(name) ? 'a function' : 'an allowed function'}`, t.start);
      return { type: 'Identifier', name, ...span };
    }
    if (called) this.fail(`'${name}' is not an allowed function`, t.start);
    this.fail(`unknown name '${name}'; expressions can read ${ROOT_LIST}`, t.start);
  }

  private parseObject(): ExprNode {
    const open = this.expect('{');
    const properties: PropertyNode[] = [];
    while (!this.isPunct('}')) {
      const k = this.next();
      if (k.type === 'punct' && k.value === '[') this.fail('computed keys are not supported', k.start);
      if (k.type !== 'name' && k.type !== 'str' && k.type !== 'num') this.unexpected(k, 'expected a property name');
      const key = k.type === 'num' ? String(k.number) : k.value;
      this.checkProperty(key, k.start);
      const rawKey = this.src.slice(k.start, k.end);
      let value: ExprNode;
      const shorthand = k.type === 'name' && (this.isPunct(',') || this.isPunct('}'));
      if (shorthand) {
        if (!ROOTS.has(key) && !isVariableName(key))
          this.fail(`unknown name '${key}'; expressions can read ${ROOT_LIST}`, k.start);
        value = { type: 'Identifier', name: key, start: k.start, end: k.end };
      } else {
        this.expect(':');
        value = this.parseExpression();
      }
      properties.push({ key, rawKey, value, shorthand, start: k.start, end: value.end });
      if (!this.isPunct('}')) this.expect(',');
    }
    return { type: 'Object', properties, start: open.start, end: this.next().end };
  }
}
