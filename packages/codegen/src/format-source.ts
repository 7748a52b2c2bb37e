/**
 * Prettier over an emitted module. Prettier walks the syntax tree recursively, so an expression
 * nested about a thousand deep overflows its stack; and the engine accepts such expressions: a
 * flat chain `1 + 1 + …` of 5,000 terms is one level to it (its walkers loop along chains), but a
 * left-deep tree 5,000 nodes tall to TypeScript and prettier. So before formatting, each such
 * expression is set aside: swapped for a placeholder name, which prettier formats like any
 * other, then put back as the emitter printed it, on one line. The rest of the module is
 * formatted as usual. Should prettier fail on a module all the same, the module is written as
 * emitted (valid TypeScript, not formatted), with a comment saying why.
 */
import { format } from 'prettier';
import ts from 'typescript';

/**
 * Tallest expression (in syntax-tree levels) left to prettier: ten times what a person writes,
 * and with whatever holds it, well under what overflows prettier's stack (some 800 levels).
 */
export const MAX_FORMATTED_HEIGHT = 200;

const PRETTIER_OPTIONS = { parser: 'typescript', singleQuote: true, printWidth: 100, trailingComma: 'all' } as const;

export async function formatSource(source: string): Promise<string> {
  try {
    const { text, restore } = setAsideTallExpressions(source);
    return restore(await format(text, PRETTIER_OPTIONS));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `// Not formatted: prettier ran out of stack on this module (${error.message}).\n${source}`;
  }
}

/**
 * `source` with each tall expression (the topmost operator expression holding no function that
 * is taller than MAX_FORMATTED_HEIGHT, or joins more `&&`, `||` or `??` than that) replaced by a
 * placeholder name, and how to put them back once formatted.
 */
export function setAsideTallExpressions(source: string): { text: string; restore: (formatted: string) => string } {
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const tall = tallExpressions(file);
  if (tall.length === 0) return { text: source, restore: (formatted) => formatted };

  const prefix = placeholderPrefix(source);
  const setAside: string[] = [];
  let text = '';
  let at = 0;
  for (const { node, parenthesized } of tall) {
    const start = node.getStart(file);
    const expression = source.slice(start, node.end);
    // Prettier drops the parentheses around a name: put back the ones the emitter wrote.
    setAside.push(parenthesized ? `(${expression})` : expression);
    text += `${source.slice(at, start)}${prefix}${setAside.length - 1}`;
    at = node.end;
  }
  text += source.slice(at);
  return {
    text,
    // Each name is in the formatted text once, where it was: prettier moves no expression.
    restore: (formatted) =>
      formatted.replace(new RegExp(`${prefix}(\\d+)`, 'g'), (_, index: string) => setAside[Number(index)]!),
  };
}

interface Measure {
  /** Levels of the subtree (a leaf is 1). */
  height: number;
  /**
   * For `&&`, `||` or `??`: how many of that operator it joins, across parentheses. Prettier
   * regroups such a run left-deep (`a && (b && c)` as `a && b && c`), so it is as tall to
   * prettier as it is long, however the export grouped it (emit/expression.ts).
   */
  run: number;
  /** The longest run in the subtree. */
  longestRun: number;
  /** A function is in it: setting it aside would leave statements unformatted. */
  holdsFunction: boolean;
}

/** The tall expressions to set aside, in source order, and whether each is in parentheses. */
function tallExpressions(file: ts.SourceFile): { node: ts.Node; parenthesized: boolean }[] {
  const measures = measure(file);
  const found: { node: ts.Node; parenthesized: boolean }[] = [];
  const stack: { node: ts.Node; parent: ts.Node | undefined }[] = [{ node: file, parent: undefined }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, parent } = top;
    const { height, longestRun, holdsFunction } = measures.get(node)!;
    if (height <= MAX_FORMATTED_HEIGHT && longestRun <= MAX_FORMATTED_HEIGHT) continue;
    if (!holdsFunction && isOperatorExpression(node)) {
      found.push({ node, parenthesized: parent !== undefined && ts.isParenthesizedExpression(parent) });
      continue;
    }
    for (const child of childNodes(node)) stack.push({ node: child, parent: node });
  }
  return found.sort((a, b) => a.node.pos - b.node.pos);
}

/** Every node's measure, bottom up without recursion: the tree may be thousands deep. */
function measure(file: ts.SourceFile): Map<ts.Node, Measure> {
  const measures = new Map<ts.Node, Measure>();
  const stack: { node: ts.Node; expanded: boolean }[] = [{ node: file, expanded: false }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const children = childNodes(top.node);
    if (!top.expanded) {
      stack.push({ node: top.node, expanded: true }, ...children.map((node) => ({ node, expanded: false })));
      continue;
    }
    const { node } = top;
    const logical = isLogical(node);
    let height = 0;
    let run = logical ? 1 : 0;
    let longestRun = 0;
    let holdsFunction = ts.isFunctionLike(node);
    for (const child of children) {
      const inner = measures.get(child)!;
      height = Math.max(height, inner.height);
      longestRun = Math.max(longestRun, inner.longestRun);
      holdsFunction ||= inner.holdsFunction;
      if (ts.isParenthesizedExpression(node)) run = inner.run;
      else if (logical && sameLogical(child, node.operatorToken.kind)) run += inner.run;
    }
    measures.set(node, { height: height + 1, run, longestRun: Math.max(longestRun, run), holdsFunction });
  }
  return measures;
}

function childNodes(node: ts.Node): ts.Node[] {
  const children: ts.Node[] = [];
  ts.forEachChild(node, (child) => {
    children.push(child);
  });
  return children;
}

/** `a + b`, `a && b`, …: a binary expression that is a value in parentheses too (no assignment, no comma). */
function isOperatorExpression(node: ts.Node): boolean {
  if (!ts.isBinaryExpression(node)) return false;
  const kind = node.operatorToken.kind;
  const assigns = kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
  return !assigns && kind !== ts.SyntaxKind.CommaToken;
}

function isLogical(node: ts.Node): node is ts.BinaryExpression {
  return ts.isBinaryExpression(node) && LOGICAL.has(node.operatorToken.kind);
}

const LOGICAL = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
]);

/** `node`, inside any parentheses, is a logical expression with operator `kind`. */
function sameLogical(node: ts.Node, kind: ts.SyntaxKind): boolean {
  let inner = node;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  return isLogical(inner) && inner.operatorToken.kind === kind;
}

/** A name prefix the module does not hold already, so each placeholder is found only where it was put. */
function placeholderPrefix(source: string): string {
  let prefix = '__weftSetAside_';
  while (source.includes(prefix)) prefix = `_${prefix}`;
  return prefix;
}
