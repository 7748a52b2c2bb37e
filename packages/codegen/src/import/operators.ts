/**
 * TypeScript's binary operators as the expression language spells them, and a chain of them
 * (`a + b - c …`) read back into the language.
 */
import ts from 'typescript';

const BINARY: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.PlusToken]: '+',
  [ts.SyntaxKind.MinusToken]: '-',
  [ts.SyntaxKind.AsteriskToken]: '*',
  [ts.SyntaxKind.SlashToken]: '/',
  [ts.SyntaxKind.PercentToken]: '%',
  [ts.SyntaxKind.AsteriskAsteriskToken]: '**',
  [ts.SyntaxKind.EqualsEqualsToken]: '==',
  [ts.SyntaxKind.ExclamationEqualsToken]: '!=',
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '===',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.LessThanToken]: '<',
  [ts.SyntaxKind.LessThanEqualsToken]: '<=',
  [ts.SyntaxKind.GreaterThanToken]: '>',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>=',
  [ts.SyntaxKind.AmpersandAmpersandToken]: '&&',
  [ts.SyntaxKind.BarBarToken]: '||',
  [ts.SyntaxKind.QuestionQuestionToken]: '??',
};

/**
 * A chain of binary operators, read along its left side in a loop: a flow may hold a flat chain
 * of thousands of terms, which would overflow the stack if each operator recursed into its left
 * operand. `read` reads an operand; `unknown` reports an operator outside the language (the
 * outermost one, not what it holds; every right operand outside it is still read, for its own
 * issues). Spelled without spaces (but `a- -b`: `--` is a token), so that a chain that fit the
 * engine's source limit in the flow fits it here too.
 */
export function readOperatorChain(
  node: ts.BinaryExpression,
  read: (operand: ts.Expression) => string | undefined,
  unknown: (token: ts.Node) => undefined,
): string | undefined {
  const chain: ts.BinaryExpression[] = []; // outermost first
  let first: ts.Expression = node;
  for (; ts.isBinaryExpression(first); first = first.left) chain.push(first);
  const outside = chain.findIndex((link) => BINARY[link.operatorToken.kind] === undefined);
  let text = outside === -1 ? read(first) : unknown(chain[outside]!.operatorToken);
  for (let at = (outside === -1 ? chain.length : outside) - 1; at >= 0; at--) {
    const link = chain[at]!;
    const right = read(flatRight(link));
    const space = right?.startsWith('-') || right?.startsWith('+') ? ' ' : '';
    text =
      text === undefined || right === undefined
        ? undefined
        : `${text}${BINARY[link.operatorToken.kind]}${space}${right}`;
  }
  return text;
}

/**
 * The right operand of `a && (b && c)` without its parentheses, when it is a chain of the same
 * `&&`, `||` or `??`: `a && b && c` means the same (they are associative), and is what the flow
 * held before the export grouped a long run of one of them (emit/expression.ts).
 */
function flatRight(link: ts.BinaryExpression): ts.Expression {
  let inner = link.right;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  const kind = link.operatorToken.kind;
  const associative =
    kind === ts.SyntaxKind.AmpersandAmpersandToken ||
    kind === ts.SyntaxKind.BarBarToken ||
    kind === ts.SyntaxKind.QuestionQuestionToken;
  return associative && ts.isBinaryExpression(inner) && inner.operatorToken.kind === kind ? inner : link.right;
}
