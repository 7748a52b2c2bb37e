/**
 * The free text a generated flow holds (names, descriptions, literal strings, template text,
 * object keys), for flow-arbitrary.ts. Two kinds: `PLAIN_TEXTS`, ordinary text with the
 * characters that are hard to quote or escape, and `HOSTILE_TEXTS`, text built to break out of
 * whatever token it is written into: every JavaScript line terminator, comment delimiters,
 * quotes, backticks, `${`, backslashes, `__proto__`, code to run, and odd Unicode (lone
 * surrogates, bidi overrides, zero-width and control characters, astral characters).
 */
import fc from 'fast-check';

export interface FlowTexts {
  /** Literal text anywhere: names, descriptions, string literals, template text. */
  text: fc.Arbitrary<string>;
  /** Keys of objects in values and property names in JSON Schemas. */
  key: fc.Arbitrary<string>;
}

/**
 * Plain text for templates, names and string literals: quotes, backticks, `${`, backslashes and
 * newlines included, and now and then a piece that is hard to quote or escape (a backslash
 * before a quote, `{{` escaped or not).
 */
const plainText = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-zA-Z0-9 .,!?'"`$\\{}\n-]{0,16}$/), weight: 4 },
  fc
    .tuple(
      fc.stringMatching(/^[a-z '\\{]{0,4}$/),
      fc.constantFrom("\\'", '\\{{', '{{', '{{ input.x }}', '\\{{ input.x }}', '\\\\'),
      fc.stringMatching(/^[a-z '\\}]{0,4}$/),
    )
    .map((parts) => parts.join('')),
);

export const PLAIN_TEXTS: FlowTexts = {
  text: plainText,
  key: fc.constantFrom('a', 'b', 'value', 'snake_case', 'with-dash', '1', 'two words'),
};

/** Pieces that end, or try to end, the token they are written into. */
const BREAKERS = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '*/',
  '/*',
  '//',
  '/// <reference path="evil.ts" />',
  '`',
  '${',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: text that would be code in a template literal.
  '${process.exit(1)}',
  "'",
  '"',
  '\\',
  '\\u2028',
  '\\`',
  "\\'",
  '__proto__',
  'constructor',
  '}});process.exit(1);({',
  "'); process.exit(1); ('",
  '`); process.exit(1); (`',
  '*/ process.exit(1) /*',
  '<!--',
  '-->',
  '</script>',
  '@ts-nocheck',
  'prettier-ignore',
  '=',
  '}}',
  '{',
  '}',
  '$',
];

/** Characters that are invisible, reorder text, or cannot be written as UTF-8 alone. */
const ODD_UNICODE = [
  '\ud800', // a lone high surrogate
  '\udfff', // a lone low surrogate
  '\u202e', // right-to-left override
  '\u2066', // left-to-right isolate
  '\u200b', // zero-width space
  '\u200d', // zero-width joiner
  '\ufeff', // byte order mark
  '\u0000',
  '\u0085', // next line (not a JavaScript line terminator)
  '\u000b',
  '\u000c',
  '\u00a0',
  '\t',
  ' ',
  'e\u0301', // a combining accent
  '😀',
  '𝒳',
];

const hostilePiece = fc.oneof(
  { arbitrary: fc.constantFrom(...BREAKERS), weight: 4 },
  { arbitrary: fc.constantFrom(...ODD_UNICODE), weight: 2 },
  { arbitrary: fc.stringMatching(/^[a-z ]{1,4}$/), weight: 2 },
  // Any UTF-16 code unit, surrogate halves included.
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 2 }),
);

const hostileText = fc.array(hostilePiece, { maxLength: 6 }).map((pieces) => pieces.join(''));

export const HOSTILE_TEXTS: FlowTexts = {
  text: hostileText,
  // The engine refuses `__proto__` itself as a key in a flow document (regressions for it are in
  // export-injection.test.ts); any text around it is a key like another.
  key: hostileText.filter((key) => key !== '__proto__'),
};
