/**
 * Prints an expression AST (from the engine's parser) as source text, with the fewest
 * parentheses that keep its meaning. Two dialects:
 *
 * - `ts`: TypeScript that behaves like the IR expression. The IR's `==`/`!=` are strict except
 *   that null equals a missing value; JavaScript's are loose. So `x == null` stays (JavaScript
 *   means the same), a comparison with any other literal or an operator's result becomes
 *   `===`/`!==` (the same, as neither is null: isStrictOperand), and anything else calls
 *   `eq(a, b)`/`ne(a, b)` from `@weft/engine`.
 *   Helpers are called by name (`len(x)`; the module destructures them from `helpers`), or as
 *   `helpers.default(x)` where the name is a reserved word. Everything else is JavaScript already:
 *   where an IR expression yields a value, JavaScript yields the same one (the IR refuses to
 *   coerce and fails instead, where JavaScript would compute `NaN` or '[object Object]').
 * - `ir`: the expression language itself, in one canonical spelling (what import writes).
 */
import { type BinaryNode, type ExprNode, type LogicalNode, type OperatorNode, operatorChain } from '@weft/engine';
import { isIdentifierName, propertyKey, RESERVED_WORDS, stringLiteral, variableName } from './escape.ts';

export type Dialect = 'ts' | 'ir';

export interface PrintOptions {
  dialect: Dialect;
  /** Called for each helper used, so the module can import it. */
  onHelper?: (name: string) => void;
  /** Called when `eq`/`ne` are needed. */
  onRuntime?: (name: 'eq' | 'ne') => void;
  /**
   * Binary and logical operators without spaces (`a+b`): for a long chain, whose canonical
   * spelling (`a + b`) can be longer than the engine's source limit the flow's own spelling met.
   */
  compact?: boolean;
}

/** Can a helper be called by its bare name (destructured from `helpers`)? */
export function isBareHelper(name: string): boolean {
  return !RESERVED_WORDS.has(name);
}

// Binding power, as in JavaScript.
const CONDITIONAL = 2;
const PRECEDENCE: Record<string, number> = {
  '??': 3,
  '||': 3,
  '&&': 4,
  '==': 7,
  '!=': 7,
  '===': 7,
  '!==': 7,
  '<': 8,
  '<=': 8,
  '>': 8,
  '>=': 8,
  '+': 10,
  '-': 10,
  '*': 11,
  '/': 11,
  '%': 11,
  '**': 12,
};
const UNARY = 13;
const POSTFIX = 17;
const PRIMARY = 18;

export function printExpression(node: ExprNode, options: PrintOptions): string {
  return new Printer(options).print(node);
}

/**
 * Printed expression text as the body of an arrow function: one that starts with `{` (an
 * object literal, or a member read of one) would be read as a block, so it gets parentheses.
 */
export function arrowBody(text: string): string {
  return text.startsWith('{') ? `(${text})` : text;
}

class Printer {
  readonly #options: PrintOptions;
  constructor(options: PrintOptions) {
    this.#options = options;
  }

  print(node: ExprNode): string {
    return this.#print(node).text;
  }

  /** The text and its binding power. */
  #print(node: ExprNode): Printed {
    switch (node.type) {
      case 'Literal':
        return { text: literal(node.value), precedence: PRIMARY };
      case 'Identifier':
        return { text: this.#name(node.name), precedence: PRIMARY };
      case 'Array':
        return { text: `[${node.elements.map((e) => this.#at(e, CONDITIONAL)).join(', ')}]`, precedence: PRIMARY };
      case 'Object': {
        // `{ item }` when the key is the name read; not when TypeScript spells the variable otherwise.
        const properties = node.properties.map((p) =>
          p.value.type === 'Identifier' && this.#name(p.value.name) === p.key
            ? p.key
            : `${this.#key(p.key)}: ${this.#at(p.value, CONDITIONAL)}`,
        );
        return { text: properties.length === 0 ? '{}' : `{ ${properties.join(', ')} }`, precedence: PRIMARY };
      }
      case 'Member':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : '.'}${node.property}`,
          precedence: POSTFIX,
        };
      case 'Index':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : ''}[${this.#at(node.index, CONDITIONAL)}]`,
          precedence: POSTFIX,
        };
      case 'MethodCall':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : '.'}${node.method}(${this.#args(node.args)})`,
          precedence: POSTFIX,
        };
      case 'Call': {
        this.#options.onHelper?.(node.callee);
        const callee =
          this.#options.dialect === 'ts' && !isBareHelper(node.callee) ? `helpers.${node.callee}` : node.callee;
        return { text: `${callee}(${this.#args(node.args)})`, precedence: POSTFIX };
      }
      case 'Chain':
        return this.#print(node.expression);
      case 'Unary': {
        const argument = node.argument;
        // `- -x` must not print as the decrement `--x`.
        const clash = argument.type === 'Unary' && argument.operator !== '!' && argument.operator !== 'typeof';
        const inner = clash ? `(${this.print(argument)})` : this.#at(argument, UNARY);
        return { text: node.operator === 'typeof' ? `typeof ${inner}` : `${node.operator}${inner}`, precedence: UNARY };
      }
      case 'Binary':
      case 'Logical':
        return this.#chain(node);
      case 'Conditional':
        return {
          text: `${this.#at(node.test, CONDITIONAL + 1)} ? ${this.#at(node.consequent, CONDITIONAL)} : ${this.#at(node.alternate, CONDITIONAL)}`,
          precedence: CONDITIONAL,
        };
    }
  }

  /**
   * An operator chain (`a + b - c`, `x && y && z`), printed left to right in a loop, as the
   * engine evaluates it: a flat chain of thousands of terms (which the engine accepts) would
   * overflow the stack if each operator recursed into its left side. Only right operands recurse.
   */
  #chain(node: OperatorNode): Printed {
    const { first, operators } = operatorChain(node);
    let left = this.#print(first);
    for (let at = 0; at < operators.length; ) {
      const operator = operators[at]!;
      if (operator.type === 'Binary') {
        left = this.#binary(operator, left);
        at++;
        continue;
      }
      let end = at + 1;
      while (end < operators.length && sameLogical(operators[end]!, operator.operator)) end++;
      const run = operators.slice(at, end) as LogicalNode[];
      if (this.#options.dialect === 'ts' && run.length > BALANCE_AFTER) left = this.#balanced(run, left);
      else for (const link of run) left = this.#logical(link, left);
      at = end;
    }
    return left;
  }

  /** `node` with its left operand already printed. */
  #binary(node: BinaryNode, left: Printed): Printed {
    let operator: string = node.operator;
    if (this.#options.dialect === 'ts' && (operator === '==' || operator === '!=')) {
      const nullSide = isNullLiteral(node.left) || isNullLiteral(node.right);
      const strictSide = isStrictOperand(node.left) || isStrictOperand(node.right);
      if (!nullSide && strictSide) operator = operator === '==' ? '===' : '!==';
      else if (!nullSide) {
        const name = operator === '==' ? 'eq' : 'ne';
        this.#options.onRuntime?.(name);
        return {
          text: `${name}(${bind(left, CONDITIONAL)}, ${this.#at(node.right, CONDITIONAL)})`,
          precedence: POSTFIX,
        };
      }
    }
    const precedence = PRECEDENCE[operator]!;
    if (operator === '**') {
      // Right-associative, and JavaScript refuses a bare unary on its left.
      return { text: this.#join(bind(left, POSTFIX), '**', this.#at(node.right, precedence)), precedence };
    }
    return { text: this.#join(bind(left, precedence), operator, this.#at(node.right, precedence + 1)), precedence };
  }

  /** `node` with its left operand already printed. */
  #logical(node: LogicalNode, left: Printed): Printed {
    const text = this.#join(this.#logicalLeft(node, left), node.operator, this.#logicalRight(node));
    return { text, precedence: PRECEDENCE[node.operator]! };
  }

  /**
   * A long run of one logical operator (`a && b && …`) in TypeScript, grouped as a balanced
   * tree: `a && (b && c && (d && e))`. The same value, from the same operands evaluated in the
   * same order (`&&`, `||` and `??` are associative), but nested log n deep, not n: TypeScript's
   * binder recurses along a logical chain, and overflows its stack on one of 1,500 terms.
   * Import reads the groups back flat (import/operators.ts).
   */
  #balanced(run: LogicalNode[], left: Printed): Printed {
    const operator = run[0]!.operator;
    const operands = run.map((link) => this.#logicalRight(link));
    const group = (from: number, to: number): string => {
      if (to - from === 1) return operands[from]!;
      const middle = (from + to) >> 1;
      const right = to - middle === 1 ? operands[middle]! : `(${group(middle, to)})`;
      return `${group(from, middle)} ${operator} ${right}`;
    };
    return {
      text: `${this.#logicalLeft(run[0]!, left)} ${operator} (${group(0, run.length)})`,
      precedence: PRECEDENCE[operator]!,
    };
  }

  #logicalLeft(node: LogicalNode, left: Printed): string {
    // JavaScript refuses `a ?? b || c` without parentheses.
    return mixesNullish(node.left, node.operator) ? `(${left.text})` : bind(left, PRECEDENCE[node.operator]!);
  }

  #logicalRight(node: LogicalNode): string {
    if (mixesNullish(node.right, node.operator)) return `(${this.print(node.right)})`;
    return this.#at(node.right, PRECEDENCE[node.operator]! + 1);
  }

  /** `a + b`; compact, `a+b`, but `a- -b` (`--` and `++` are tokens of their own). */
  #join(left: string, operator: string, right: string): string {
    if (!this.#options.compact) return `${left} ${operator} ${right}`;
    return `${left}${operator}${right.startsWith('-') || right.startsWith('+') ? ' ' : ''}${right}`;
  }

  /** The object of a member read or call: a chain or a number literal needs parentheses there. */
  #object(node: ExprNode): string {
    if (node.type === 'Chain' || (node.type === 'Literal' && typeof node.value === 'number')) {
      return `(${this.print(node)})`;
    }
    return this.#at(node, POSTFIX);
  }

  /** A name an expression reads: in TypeScript, a map's variable may be spelled `$name` (escape.ts). */
  #name(name: string): string {
    return this.#options.dialect === 'ts' ? variableName(name) : name;
  }

  /** The IR has no computed keys: only TypeScript needs `propertyKey` (which computes `__proto__`). */
  #key(key: string): string {
    if (this.#options.dialect === 'ts') return propertyKey(key);
    return isIdentifierName(key) ? key : stringLiteral(key);
  }

  #args(args: ExprNode[]): string {
    return args.map((arg) => this.#at(arg, CONDITIONAL)).join(', ');
  }

  /** The node's text, parenthesized when it binds looser than `min`. */
  #at(node: ExprNode, min: number): string {
    return bind(this.#print(node), min);
  }
}

/**
 * Runs of one logical operator longer than this are grouped in TypeScript (Printer.#balanced):
 * far beyond what a person writes, well within what TypeScript's binder can take.
 */
const BALANCE_AFTER = 200;

function sameLogical(node: OperatorNode, operator: LogicalNode['operator']): boolean {
  return node.type === 'Logical' && node.operator === operator;
}

/** `a ?? b` beside `&&`/`||`, which JavaScript refuses without parentheses. */
function mixesNullish(child: ExprNode, operator: LogicalNode['operator']): boolean {
  return child.type === 'Logical' && (child.operator === '??') !== (operator === '??');
}

/** Printed text and its binding power. */
interface Printed {
  text: string;
  precedence: number;
}

/** Printed text, parenthesized when it binds looser than `min`. */
function bind({ text, precedence }: Printed, min: number): string {
  return precedence < min ? `(${text})` : text;
}

function isNullLiteral(node: ExprNode): boolean {
  return node.type === 'Literal' && node.value === null;
}

/**
 * An operand never null nor missing: a literal (not null), or what a unary or binary operator
 * gives (the engine's give a value or fail). The IR's `==` with one is JavaScript's `===`; so a
 * chain `a == b == c` prints flat, `eq(a, b) === c`, not `eq(eq(a, b), c)`, which would nest as
 * deep as the chain is long.
 */
export function isStrictOperand(node: ExprNode): boolean {
  if (node.type === 'Literal') return node.value !== null;
  return node.type === 'Unary' || node.type === 'Binary';
}

function literal(value: string | number | boolean | null): string {
  if (typeof value === 'string') return stringLiteral(value);
  return String(value);
}
