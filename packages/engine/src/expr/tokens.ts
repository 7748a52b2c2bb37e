/** The tokenizer: JavaScript's expression tokens, minus regex and template literals. */
import { ExpressionError } from '../errors.ts';

export interface Token {
  type: 'num' | 'str' | 'name' | 'punct' | 'eof';
  /** num/name/punct: the text; str: the cooked string value. */
  value: string;
  /** num: the numeric value. */
  number: number;
  start: number;
  end: number;
}

/** Longest first. Includes operators the parser rejects, so it can name them in its error. */
const PUNCTUATORS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '**',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '?',
  '.',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '=',
  '&',
  '|',
  '^',
  '~',
  ';',
  '`',
];

const ID_START = /[\p{ID_Start}$_]/u;
const ID_CONTINUE = /[\p{ID_Continue}$\u200c\u200d]/u;
const DIGIT = /[0-9]/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const fail = (message: string, at: number): never => {
    throw new ExpressionError(message, src, at);
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0' || c === '\ufeff') {
      i++;
      continue;
    }
    const start = i;
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(src[i + 1] ?? ''))) {
      i = readNumber(src, i, fail);
      const raw = src.slice(start, i);
      if (ID_START.test(src[i] ?? '') || DIGIT.test(src[i] ?? '')) fail(`invalid number '${raw}${src[i]}'`, start);
      tokens.push({ type: 'num', value: raw, number: Number(raw), start, end: i });
      continue;
    }
    if (c === "'" || c === '"') {
      const [value, end] = readString(src, i, fail);
      i = end;
      tokens.push({ type: 'str', value, number: 0, start, end });
      continue;
    }
    const code = src.codePointAt(i)!;
    if (ID_START.test(String.fromCodePoint(code))) {
      i += code > 0xffff ? 2 : 1;
      while (i < src.length) {
        const next = src.codePointAt(i)!;
        if (!ID_CONTINUE.test(String.fromCodePoint(next))) break;
        i += next > 0xffff ? 2 : 1;
      }
      tokens.push({ type: 'name', value: src.slice(start, i), number: 0, start, end: i });
      continue;
    }
    let punct = PUNCTUATORS.find((p) => src.startsWith(p, i));
    // `a?.5:1` is a conditional, not optional chaining.
    if (punct === '?.' && DIGIT.test(src[i + 2] ?? '')) punct = '?';
    if (punct === undefined) fail(`unexpected character '${String.fromCodePoint(code)}'`, i);
    i += punct!.length;
    tokens.push({ type: 'punct', value: punct!, number: 0, start, end: i });
  }
  tokens.push({ type: 'eof', value: '', number: 0, start: src.length, end: src.length });
  return tokens;
}

function readNumber(src: string, i: number, fail: (message: string, at: number) => never): number {
  const start = i;
  if (src[i] === '0' && /[xXoObB]/.test(src[i + 1] ?? '')) {
    const digits = /[xX]/.test(src[i + 1]!) ? /[0-9a-fA-F]/ : /[oO]/.test(src[i + 1]!) ? /[0-7]/ : /[01]/;
    i += 2;
    const first = i;
    while (digits.test(src[i] ?? '')) i++;
    if (i === first) fail('invalid number', start);
    return i;
  }
  if (src[i] === '0' && DIGIT.test(src[i + 1] ?? '')) fail('numbers cannot start with 0 (legacy octal)', start);
  while (DIGIT.test(src[i] ?? '')) i++;
  if (src[i] === '.') {
    i++;
    while (DIGIT.test(src[i] ?? '')) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    i++;
    if (src[i] === '+' || src[i] === '-') i++;
    if (!DIGIT.test(src[i] ?? '')) fail('invalid number exponent', start);
    while (DIGIT.test(src[i] ?? '')) i++;
  }
  return i;
}

function readString(src: string, i: number, fail: (message: string, at: number) => never): [string, number] {
  const quote = src[i]!;
  const start = i;
  i++;
  let out = '';
  for (;;) {
    const c = src[i];
    if (c === undefined || c === '\n' || c === '\r') return fail('unterminated string', start);
    i++;
    if (c === quote) return [out, i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = src[i];
    if (e === undefined) return fail('unterminated string', start);
    const at = i - 1; // the backslash
    i++;
    if (e === '0' && DIGIT.test(src[i] ?? '')) fail('octal escapes are not allowed', at);
    const simple = Object.hasOwn(SIMPLE_ESCAPES, e) ? SIMPLE_ESCAPES[e] : undefined;
    if (simple !== undefined) out += simple;
    else if (e === 'x') {
      const hex = src.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail('invalid \\x escape', at);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2;
    } else if (e === 'u') {
      let hex = '';
      if (src[i] === '{') {
        const close = src.indexOf('}', i);
        if (close > 0) hex = src.slice(i + 1, close);
        if (!/^[0-9a-fA-F]{1,6}$/.test(hex)) fail('invalid \\u escape', at);
        i = close + 1;
      } else {
        hex = src.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape', at);
        i += 4;
      }
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff) fail('invalid \\u escape', at);
      out += String.fromCodePoint(cp);
    } else if (e === '\r' || e === '\n') {
      if (e === '\r' && src[i] === '\n') i++; // a line continuation
    } else if (DIGIT.test(e)) {
      fail(`invalid escape '\\${e}'`, at);
    } else out += e;
  }
}
