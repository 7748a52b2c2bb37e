/**
 * A map names its item (`as`, default `item`): expressions inside read it by that name, nested
 * maps see the outer names. Export writes the name as the item parameter of the map's body in
 * every target (spelled `$name` where the export itself uses the name, e.g. `eq` or `failure`),
 * so the expressions it writes verbatim read that parameter; the weft target writes `as` and
 * import reads it back.
 *
 * Checked per target with the TypeScript checker: every read of a map variable resolves to the
 * parameter of a map body, and the export's own functions (`eq`, `failure`, a code step's
 * function) still resolve to themselves inside a map whose item has their name.
 */
import { type Flow, validateFlow } from '@weft/engine';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { variableName } from './emit/escape.ts';
import { type ExportTargetName, exportFlow, exportFlowFiles, TARGETS } from './export-flow.ts';
import { importFlow } from './import/import-flow.ts';
import { canonicalFlow } from './test-support/canonical.ts';

const TARGET_NAMES = Object.keys(TARGETS) as ExportTargetName[];

function flow(steps: unknown[]): Flow {
  const result = validateFlow({ irVersion: 1, id: 'maps', name: 'Maps', steps });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.flow;
}

const CASES: [string, Flow, string[]][] = [
  [
    'as written out as "item"',
    flow([
      {
        id: 'each',
        type: 'map',
        items: '=input.tickets',
        as: 'item',
        steps: [{ id: 'subject', type: 'transform', value: { s: '=item.subject', at: '=index' } }],
      },
    ]),
    ['item'],
  ],
  [
    'as "ticket"',
    flow([
      {
        id: 'each',
        type: 'map',
        items: '=input.tickets',
        as: 'ticket',
        steps: [
          { id: 'subject', type: 'transform', value: { s: '=ticket.subject', all: '={ ticket }.ticket' } },
          { id: 'reply', type: 'llm', model: 'mock:echo', prompt: 'Re: {{ ticket.subject }}' },
        ],
      },
    ]),
    ['ticket'],
  ],
  [
    'nested: outer "order", inner "line" reading both',
    flow([
      {
        id: 'orders',
        type: 'map',
        items: '=input.orders',
        as: 'order',
        steps: [
          {
            id: 'lines',
            type: 'map',
            items: '=order.lines',
            as: 'line',
            steps: [{ id: 'pair', type: 'transform', value: '=[order.id, line.sku, index]' }],
          },
        ],
      },
    ]),
    ['order', 'line'],
  ],
  [
    'inner default "item" inside outer "order"',
    flow([
      {
        id: 'orders',
        type: 'map',
        items: '=input.orders',
        as: 'order',
        steps: [
          {
            id: 'lines',
            type: 'map',
            items: '=order.lines',
            steps: [{ id: 'pair', type: 'transform', value: { order: '=order.id', line: '=item' } }],
          },
        ],
      },
    ]),
    ['order', 'item'],
  ],
  [
    'inner "line" inside an outer default map, reading the outer item',
    flow([
      {
        id: 'orders',
        type: 'map',
        items: '=input.orders',
        steps: [
          {
            id: 'lines',
            type: 'map',
            items: '=item.lines',
            as: 'line',
            steps: [{ id: 'pair', type: 'transform', value: '=[item.id, line]' }],
          },
        ],
      },
    ]),
    ['item', 'line'],
  ],
  [
    'names the export uses itself: "eq", "failure", "s2Code"',
    flow([
      {
        id: 'outer',
        type: 'map',
        items: '=input.orders',
        as: 'eq',
        steps: [
          {
            id: 'inner',
            type: 'map',
            items: '=eq.lines',
            as: 'failure',
            steps: [
              { id: 'same', type: 'transform', value: '=eq.a == failure.b && { eq }.eq.a' },
              { id: 's2', type: 'code', source: 'return args.v;', args: { v: '=failure' } },
              { id: 'stop', type: 'fail', message: 'no {{ failure.b }}' },
            ],
          },
          {
            id: 'third',
            type: 'map',
            items: '=eq.lines',
            as: 's2Code',
            steps: [{ id: 'read', type: 'transform', value: '=s2Code' }],
          },
        ],
      },
    ]),
    ['eq', 'failure', 's2Code'],
  ],
];

/** The module with a type checker over it alone (no lib, no imports resolved: names in the file only). */
function checked(text: string): { file: ts.SourceFile; checker: ts.TypeChecker } {
  const name = 'module.ts';
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const host: ts.CompilerHost = {
    getSourceFile: (requested) => (requested === name ? file : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => fileName === name,
    readFile: () => undefined,
  };
  const program = ts.createProgram([name], { noLib: true, noResolve: true, types: [] }, host);
  return { file, checker: program.getTypeChecker() };
}

/** Is `fn` the body of a map: the last argument of `runMap(…)`, or `steps:` of `step.map(…)`'s config? */
function isMapBody(fn: ts.Node, file: ts.SourceFile): boolean {
  const parent = fn.parent;
  if (ts.isCallExpression(parent)) return parent.expression.getText(file) === 'runMap';
  if (!ts.isPropertyAssignment(parent) || parent.name.getText(file) !== 'steps') return false;
  const call = parent.parent.parent;
  return ts.isCallExpression(call) && call.expression.getText(file) === 'step.map';
}

/** Where each read of `name` (not a declaration, not a property name) is declared. */
function declarationsOfReads(text: string, name: string): ts.Declaration[] {
  const { file, checker } = checked(text);
  const found: ts.Declaration[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) {
      const parent = node.parent;
      const declares =
        ((ts.isParameter(parent) || ts.isBindingElement(parent) || ts.isFunctionDeclaration(parent)) &&
          parent.name === node) ||
        ts.isImportSpecifier(parent);
      const isPropertyName =
        ((ts.isPropertyAssignment(parent) || ts.isPropertyAccessExpression(parent)) && parent.name === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node);
      if (!declares && !isPropertyName) {
        // `{ ticket }` is a property and a read: the read's symbol is the variable's.
        const symbol = ts.isShorthandPropertyAssignment(parent)
          ? checker.getShorthandAssignmentValueSymbol(parent)
          : checker.getSymbolAtLocation(node);
        const declaration = symbol?.declarations?.[0];
        if (declaration === undefined) throw new Error(`'${name}' at ${node.getStart(file)} resolves to nothing`);
        found.push(declaration);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('map.as', () => {
  it.each(CASES)('%s: IR → weft → IR is the identity, and the export is a fixed point', async (_, source) => {
    const text = await exportFlow(source, 'weft');
    const imported = importFlow(text);
    if (!imported.ok) throw new Error(`${JSON.stringify(imported.errors)}\n${text}`);
    expect(canonicalFlow(imported.flow)).toEqual(canonicalFlow(source));
    expect(await exportFlow(imported.flow, 'weft')).toBe(text);
  });

  it.each(CASES)(
    '%s: in every target, each read of a map variable is the map body parameter',
    async (_, source, names) => {
      for (const target of TARGET_NAMES) {
        const [main] = await exportFlowFiles(source, target);
        for (const name of names) {
          const reads = declarationsOfReads(main!.contents, variableName(name));
          expect(reads.length, `${target}: ${name}\n${main!.contents}`).toBeGreaterThan(0);
          for (const declaration of reads) {
            const fn = ts.isBindingElement(declaration) ? declaration.parent.parent.parent : declaration.parent;
            expect(ts.isParameter(declaration) || ts.isBindingElement(declaration), `${target}: ${name}`).toBe(true);
            expect(isMapBody(fn, declaration.getSourceFile()), `${target}: ${name}\n${main!.contents}`).toBe(true);
          }
        }
      }
    },
  );

  it("keeps the export's own names its own inside a map whose item has their name", async () => {
    const source = CASES.at(-1)![1];
    for (const target of TARGET_NAMES) {
      const [main] = await exportFlowFiles(source, target);
      const text = main!.contents;
      expect(text, target).toContain('$eq');
      expect(text, target).toContain('$failure');
      for (const own of target === 'weft' ? ['eq', 's2Code'] : ['eq', 'failure']) {
        const reads = declarationsOfReads(text, own);
        expect(reads.length, `${target}: ${own}`).toBeGreaterThan(0);
        for (const declaration of reads) {
          const moduleLevel = ts.isFunctionDeclaration(declaration) || ts.isImportSpecifier(declaration);
          expect(moduleLevel, `${target}: '${own}' read as ${ts.SyntaxKind[declaration.kind]}\n${text}`).toBe(true);
        }
      }
    }
  });

  it('import reads a hand-written item name, and refuses one that hides a name the body means', () => {
    const module = (as: string, binding: string, value: string) => `import { defineFlow } from '@weft/engine';
export default defineFlow({ id: 'm', name: 'M' }, async ({ input, step }) => {
  return step.map('each', { items: input.tickets, steps: async ({ step, ${binding} }) => {
    return step.transform('t', { value: ${value} });
  }${as} });
});
`;
    const named = importFlow(module(", as: 'ticket'", 'item: t', 't.subject'));
    if (!named.ok) throw new Error(JSON.stringify(named.errors));
    expect(named.flow.steps[0]).toMatchObject({ as: 'ticket', steps: [{ value: '=ticket.subject' }] });
    const defaulted = importFlow(module('', 'item: t', 't.subject'));
    if (!defaulted.ok) throw new Error(JSON.stringify(defaulted.errors));
    expect(defaulted.flow.steps[0]).toMatchObject({ steps: [{ value: '=item.subject' }] });
    const hiding = importFlow(module(", as: 'steps'", 'item: steps', 'steps.subject'));
    expect(hiding.ok).toBe(false);
    if (!hiding.ok) expect(hiding.errors[0]!.message).toContain("the item cannot be named 'steps'");
  });
});
