/**
 * Each escape reads back, through the TypeScript parser, as exactly the text it was given, and
 * never as more than its one token — for any UTF-16 text, lone surrogates included.
 */
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseModule, prototypeSetters } from '../test-support/typescript-ast.ts';
import {
  blockCommentText,
  docComment,
  isLineCommentExact,
  lineComment,
  propertyKey,
  stringLiteral,
  templateText,
  variableName,
} from './escape.ts';

/** Any UTF-16 code units, weighted towards the ones that end tokens. */
const anyText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
  fc
    .array(
      fc.constantFrom('\n', '\r', '\u2028', '\u2029', '*/', '`', '${', "'", '"', '\\', '\ud800', '\udc00', 'a', ' '),
    )
    .map((parts) => parts.join('')),
);

/** The statements of `source`, which must parse. */
function statements(source: string): readonly ts.Statement[] {
  const { file, diagnostics } = parseModule(source);
  expect(diagnostics, source).toEqual([]);
  return file.statements;
}

/** The one expression of `source`, which must be a single expression statement. */
function onlyExpression(source: string): ts.Expression {
  const [statement, ...rest] = statements(source);
  expect(rest).toEqual([]);
  expect(statement && ts.isExpressionStatement(statement)).toBe(true);
  return (statement as ts.ExpressionStatement).expression;
}

describe('escape', () => {
  it('stringLiteral reads back as the text, on one line', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const literal = stringLiteral(text);
        expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
        const node = onlyExpression(literal);
        expect(ts.isStringLiteral(node) && node.text).toBe(text);
      }),
      { numRuns: 500 },
    );
    expect(stringLiteral("it's \\ \u2028 \ud800")).toBe("'it\\'s \\\\ \\u2028 \\uD800'");
  });

  it('templateText reads back as the text inside a template literal, with no substitution', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const node = onlyExpression(`\`${templateText(text)}\``);
        expect(ts.isNoSubstitutionTemplateLiteral(node) && node.text).toBe(text);
      }),
      { numRuns: 500 },
    );
    // For the `template` tag, a literal `{{` is written `\{{`, which the tag reads as `{{`.
    expect(templateText('a{{b', { literalBraces: true })).toBe('a\\\\{{b');
  });

  it('lineComment is comments only, and reads back exactly when isLineCommentExact says so', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const source = `${lineComment(text)}\nx;`;
        expect(statements(source)).toHaveLength(1);
        const ranges = ts.getLeadingCommentRanges(source, 0) ?? [];
        expect(ranges.every((range) => range.kind === ts.SyntaxKind.SingleLineCommentTrivia)).toBe(true);
        const read = ranges.map((range) => source.slice(range.pos + 2, range.end).replace(/^ /, '')).join('\n');
        if (isLineCommentExact(text)) expect(read).toBe(text);
      }),
      { numRuns: 500 },
    );
    expect(isLineCommentExact('Classify\nthe ticket')).toBe(true);
    for (const text of ['a\rb', 'a\u2028b', 'trailing ', '\ud800', 'bidi \u202e'])
      expect(isLineCommentExact(text)).toBe(false);
  });

  it('blockCommentText and docComment stay one comment', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        for (const comment of [`/* ${blockCommentText(text)} */`, docComment(text)]) {
          const source = `${comment}\nx;`;
          expect(statements(source)).toHaveLength(1);
          const ranges = ts.getLeadingCommentRanges(source, 0) ?? [];
          expect(ranges.map((range) => source.slice(range.pos, range.end))).toEqual([comment]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('propertyKey names exactly the key, as an own property (`__proto__` computed)', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.constantFrom('__proto__', 'constructor', 'a', '1', 'a-b')), (key) => {
        const { file } = parseModule(`({ ${propertyKey(key)}: 1 });`);
        expect(prototypeSetters(file)).toEqual([]);
        const object = onlyExpression(`({ ${propertyKey(key)}: 1 });`) as ts.ParenthesizedExpression;
        const property = (object.expression as ts.ObjectLiteralExpression).properties[0] as ts.PropertyAssignment;
        const name = ts.isComputedPropertyName(property.name)
          ? (property.name.expression as ts.StringLiteral).text
          : (property.name as ts.Identifier | ts.StringLiteral).text;
        expect(name).toBe(key);
      }),
      { numRuns: 300 },
    );
    expect(propertyKey('__proto__')).toBe("['__proto__']");
  });

  it('variableName keeps a map variable apart from the names the export uses', () => {
    const names = ['ticket', 'item', 'input', 'eq', 'failure', 's1Code', 'lookupTool', 'len', 'class', '$eq', '$$eq'];
    expect(names.map(variableName)).toEqual([
      'ticket',
      'item',
      'input',
      '$eq',
      '$failure',
      '$s1Code',
      '$lookupTool',
      '$len',
      '$class',
      '$$eq',
      '$$$eq',
    ]);
    expect(() => variableName('a); process.exit(1); (b')).toThrow(/cannot name a variable/);
  });
});
