/**
 * The expression AST: a discriminated union on `type`. It is faithful to the source (operators
 * as written, `==` stays `==`, optional chains keep their `?.`), so an exporter can print it
 * back as JavaScript. `start`/`end` are 0-based offsets into the expression source.
 */

/** The names every expression may read where they are in scope (a map adds its `as` name). */
export type ExprRoot = 'input' | 'steps' | 'item' | 'index' | 'iteration' | 'args';
export const EXPR_ROOTS: readonly ExprRoot[] = ['input', 'steps', 'item', 'index', 'iteration', 'args'];

export type UnaryOperator = '!' | '-' | '+' | 'typeof';
export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '**' | '==' | '!=' | '===' | '!==' | '<' | '<=' | '>' | '>=';
export type LogicalOperator = '&&' | '||' | '??';

interface Span {
  start: number;
  end: number;
}

export interface LiteralNode extends Span {
  type: 'Literal';
  value: string | number | boolean | null;
  /** The literal as written (`0x10`, `'it\'s'`). */
  raw: string;
}
export interface IdentifierNode extends Span {
  type: 'Identifier';
  /** A built-in root or a variable a map binds (`as`); see names.ts. */
  name: string;
}
export interface ArrayNode extends Span {
  type: 'Array';
  elements: ExprNode[];
}
export interface PropertyNode extends Span {
  key: string;
  /** The key as written: `a`, `'a b'`, `1`. */
  rawKey: string;
  value: ExprNode;
  /** `{ input }` */
  shorthand: boolean;
}
export interface ObjectNode extends Span {
  type: 'Object';
  properties: PropertyNode[];
}
/** `a.b` / `a?.b` */
export interface MemberNode extends Span {
  type: 'Member';
  object: ExprNode;
  property: string;
  optional: boolean;
}
/** `a[x]` / `a?.[x]` */
export interface IndexNode extends Span {
  type: 'Index';
  object: ExprNode;
  index: ExprNode;
  optional: boolean;
}
/** A helper call: `len(x)`. */
export interface CallNode extends Span {
  type: 'Call';
  callee: string;
  args: ExprNode[];
}
/** A whitelisted string/array method: `a.slice(1)` / `a?.slice(1)`. */
export interface MethodCallNode extends Span {
  type: 'MethodCall';
  object: ExprNode;
  method: string;
  args: ExprNode[];
  optional: boolean;
}
/** Wraps an optional chain (`a?.b.c`): where a short-circuited chain becomes `undefined`. */
export interface ChainNode extends Span {
  type: 'Chain';
  expression: ExprNode;
}
export interface UnaryNode extends Span {
  type: 'Unary';
  operator: UnaryOperator;
  argument: ExprNode;
}
export interface BinaryNode extends Span {
  type: 'Binary';
  operator: BinaryOperator;
  left: ExprNode;
  right: ExprNode;
}
export interface LogicalNode extends Span {
  type: 'Logical';
  operator: LogicalOperator;
  left: ExprNode;
  right: ExprNode;
}
export interface ConditionalNode extends Span {
  type: 'Conditional';
  test: ExprNode;
  consequent: ExprNode;
  alternate: ExprNode;
}

export type ExprNode =
  | LiteralNode
  | IdentifierNode
  | ArrayNode
  | ObjectNode
  | MemberNode
  | IndexNode
  | CallNode
  | MethodCallNode
  | ChainNode
  | UnaryNode
  | BinaryNode
  | LogicalNode
  | ConditionalNode;

/** The direct children of a node, in source order. */
export function childrenOf(node: ExprNode): ExprNode[] {
  switch (node.type) {
    case 'Literal':
    case 'Identifier':
      return [];
    case 'Array':
      return node.elements;
    case 'Object':
      return node.properties.map((p) => p.value);
    case 'Member':
      return [node.object];
    case 'Index':
      return [node.object, node.index];
    case 'Call':
      return node.args;
    case 'MethodCall':
      return [node.object, ...node.args];
    case 'Chain':
      return [node.expression];
    case 'Unary':
      return [node.argument];
    case 'Binary':
    case 'Logical':
      return [node.left, node.right];
    case 'Conditional':
      return [node.test, node.consequent, node.alternate];
  }
}

/** A node of an operator chain (`a + b - c`, `x && y && z`): Binary or Logical. */
export type OperatorNode = BinaryNode | LogicalNode;

export function isOperatorNode(node: ExprNode): node is OperatorNode {
  return node.type === 'Binary' || node.type === 'Logical';
}

/**
 * The operators of a left-deep chain, innermost (leftmost) first, and the operand they start
 * from: `a + b * c - d` is `a`, then `+ b * c`, then `- d`. Walkers go along it in a loop, so
 * a flat chain of 5,000 terms costs them no stack; only its right operands are recursed into.
 */
export function operatorChain(node: OperatorNode): { first: ExprNode; operators: OperatorNode[] } {
  const operators: OperatorNode[] = [];
  let first: ExprNode = node;
  while (isOperatorNode(first)) {
    operators.push(first);
    first = first.left;
  }
  return { first, operators: operators.reverse() };
}

/**
 * How deeply the tree nests (a leaf is 1), measured without recursion: how deep the recursive
 * walkers (evaluate, analyze) go. The left operand of an operator that is itself an operator
 * is at the same depth, as walkers follow such chains in a loop (operatorChain): `1+1+…+1` is
 * flat however long, while `(1+(1+(…)))`, `!!!x` or `[[[x]]]` nest.
 */
export function depthOf(root: ExprNode): number {
  let max = 0;
  const stack: [ExprNode, number][] = [[root, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > max) max = depth;
    if (isOperatorNode(node)) {
      stack.push([node.left, isOperatorNode(node.left) ? depth : depth + 1], [node.right, depth + 1]);
      continue;
    }
    for (const child of childrenOf(node)) stack.push([child, depth + 1]);
  }
  return max;
}
