/** Static analysis of a parsed expression: which roots it reads, which `steps.<id>` paths. */
import { childrenOf, type ExprNode, isOperatorNode, operatorChain } from './ast.ts';
import type { StepRef } from './types.ts';

export interface Analysis {
  roots: Set<string>;
  /** Where each name is first read (offset into the source), for errors about names not in scope. */
  namePositions: Map<string, number>;
  stepRefs: StepRef[];
}

export function analyze(root: ExprNode): Analysis {
  const roots = new Set<string>();
  const namePositions = new Map<string, number>();
  const stepRefs: StepRef[] = [];
  const seen = new Set<string>();
  const visit = (node: ExprNode): void => {
    if (node.type === 'Identifier') {
      roots.add(node.name);
      if (!namePositions.has(node.name)) namePositions.set(node.name, node.start);
      return;
    }
    if (node.type === 'Member' || node.type === 'Index') {
      // Flatten the access chain from its base outwards: steps . a . output [i] . x
      const accesses: (string | ExprNode)[] = [];
      let base: ExprNode = node;
      for (;;) {
        if (base.type === 'Member') accesses.push(base.property);
        else if (base.type === 'Index') accesses.push(staticKey(base.index) ?? base.index);
        else if (base.type !== 'Chain') break;
        base = base.type === 'Chain' ? base.expression : base.object;
      }
      accesses.reverse();
      visit(base);
      for (const a of accesses) if (typeof a !== 'string') visit(a);
      if (base.type === 'Identifier' && base.name === 'steps' && typeof accesses[0] === 'string') {
        const path: string[] = [];
        for (const a of accesses.slice(1)) {
          if (typeof a !== 'string') break;
          path.push(a);
        }
        const ref = { stepId: accesses[0], path };
        const key = JSON.stringify(ref);
        if (!seen.has(key)) {
          seen.add(key);
          stepRefs.push(ref);
        }
      }
      return;
    }
    if (isOperatorNode(node)) {
      // Along the chain in a loop, in source order: a flat `a && b && …` costs no stack.
      const { first, operators } = operatorChain(node);
      visit(first);
      for (const op of operators) visit(op.right);
      return;
    }
    for (const child of childrenOf(node)) visit(child);
  };
  visit(root);
  return { roots, namePositions, stepRefs };
}

/** The key of `x['a']` / `x[0]`, when written as a literal. */
function staticKey(node: ExprNode): string | undefined {
  if (node.type !== 'Literal') return undefined;
  if (typeof node.value === 'string') return node.value;
  if (typeof node.value === 'number') return String(node.value);
  return undefined;
}
