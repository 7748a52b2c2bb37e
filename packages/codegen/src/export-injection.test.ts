/**
 * Regressions from the security audit of the TypeScript export: text from a flow must stay text
 * in every target. Each case was code in the exported module before the fix:
 *
 * - a step name, flow name or description holding a JavaScript line terminator other than `\n`
 *   (`\r`, U+2028, U+2029) ended its `//` comment, and what followed was a statement (at module
 *   top level in the inngest and temporal headers, so it ran on import);
 * - a `__proto__` key in a value was written `{ __proto__: … }`, which sets the object's
 *   prototype instead of holding data (and the import read it back as a prototype too);
 * - a code step's source that closes its function (`} process.exit(1); function f() {`) put
 *   statements at the top level of the inngest module and Temporal's activities file.
 */
import { type Flow, validateFlow } from '@weft/engine';
import type ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type ExportTargetName, exportFlowFiles, TARGETS } from './export-flow.ts';
import { ExpressionReader } from './import/expressions.ts';
import { importFlow } from './import/import-flow.ts';
import { Issues } from './import/issues.ts';
import { canonicalFlow } from './test-support/canonical.ts';
import { calledNames, codeIdentifiers, parseModule, prototypeSetters } from './test-support/typescript-ast.ts';

const TARGET_NAMES = Object.keys(TARGETS) as ExportTargetName[];

function flow(raw: Record<string, unknown>): Flow {
  const result = validateFlow({ irVersion: 1, id: 'demo', name: 'Demo', ...raw });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.flow;
}

/** Every file of every target's export, parsed. */
async function exportedModules(source: Flow) {
  const modules = [];
  for (const target of TARGET_NAMES) {
    for (const file of await exportFlowFiles(source, target)) {
      modules.push({ target, path: file.path, text: file.contents, ...parseModule(file.contents, file.path) });
    }
  }
  return modules;
}

/** The module runs no `process.exit`: not as a call, and `exit` is no name the code uses. */
async function expectNoExit(source: Flow): Promise<void> {
  const modules = await exportedModules(source);
  expect(modules.length).toBe(4);
  for (const module of modules) {
    const where = `${module.target}: ${module.path}\n${module.text}`;
    expect(module.diagnostics, where).toEqual([]);
    expect(calledNames(module.file).has('process.exit'), where).toBe(false);
    expect(codeIdentifiers(module.file).has('exit'), where).toBe(false);
  }
}

const LINE_TERMINATORS = [
  ['carriage return', '\r'],
  ['line separator U+2028', '\u2028'],
  ['paragraph separator U+2029', '\u2029'],
  ['CRLF', '\r\n'],
] as const;

describe('a line terminator in a step name', () => {
  it.each(LINE_TERMINATORS)('(%s) does not end the comment: what follows is no statement', async (_, eol) => {
    await expectNoExit(
      flow({
        steps: [
          { id: 'a', type: 'transform', name: `Tidy up${eol}process.exit(1)`, value: 1 },
          {
            id: 'each',
            type: 'map',
            items: '=[1]',
            name: `Each${eol}process.exit(2);${eol}`,
            steps: [{ id: 'inner', type: 'sleep', duration: '1s', name: `${eol}process.exit(3)` }],
          },
        ],
      }),
    );
  });

  it.each(LINE_TERMINATORS)('(%s) comes back exactly from the weft target', async (_, eol) => {
    const source = flow({ steps: [{ id: 'a', type: 'transform', name: `Tidy${eol}process.exit(1)`, value: 1 }] });
    const [file] = await exportFlowFiles(source, 'weft');
    const imported = importFlow(file!.contents);
    if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
    expect(imported.flow.steps[0]!.name).toBe(`Tidy${eol}process.exit(1)`);
  });
});

describe('a line terminator in the flow name or description', () => {
  it.each(LINE_TERMINATORS)('(%s) does not end the header comment or doc comment', async (_, eol) => {
    await expectNoExit(
      flow({
        name: `Demo${eol}process.exit(1)`,
        description: `What it does${eol}process.exit(2)${eol}*/ process.exit(3) /*`,
        steps: [{ id: 'a', type: 'transform', value: 1 }],
      }),
    );
  });
});

describe("a code step's source that ends its function", () => {
  it('is not module code in any target: the step fails when it runs instead', async () => {
    const source = flow({
      steps: [{ id: 'a', type: 'code', source: 'return 1;\n}\nprocess.exit(1);\nfunction again() {' }],
    });
    await expectNoExit(source);
    for (const target of ['inngest', 'temporal'] as const) {
      const files = await exportFlowFiles(source, target);
      expect(files.map((file) => file.contents).join('\n')).toContain('is not a function body');
    }
  });
});

describe('a __proto__ key in a value', () => {
  const value = JSON.parse('{"__proto__": {"polluted": "=input.x", "note": "text"}, "list": [{"__proto__": 1}]}');
  // Not validated: the engine may refuse `__proto__` keys in a flow document, but export must
  // write whatever it is given as data (a caller may hand it a flow straight from JSON.parse).
  const protoFlow = { irVersion: 1, id: 'demo', name: 'Demo', steps: [{ id: 'a', type: 'transform', value }] } as Flow;

  it('is written as a computed key in every target, never as a prototype setter', async () => {
    const modules = await exportedModules(protoFlow);
    for (const module of modules) {
      expect(module.diagnostics, module.path).toEqual([]);
      expect(prototypeSetters(module.file), `${module.target}: ${module.path}\n${module.text}`).toEqual([]);
      // The value is in each target's main module (Temporal's activities hold only the calls).
      if (!module.path.endsWith('.activities.ts')) expect(module.text, module.path).toContain("['__proto__']");
    }
  });

  it('imports back as the same value, or is refused by validation: never silently a prototype', async () => {
    const [file] = await exportFlowFiles(protoFlow, 'weft');
    const imported = importFlow(file!.contents);
    if (validateFlow(protoFlow).ok) {
      if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
      expect(canonicalFlow(imported.flow)).toEqual(canonicalFlow(protoFlow));
      expect(JSON.stringify((imported.flow.steps[0] as { value: unknown }).value)).toBe(JSON.stringify(value));
    } else {
      // The engine refuses the key in any flow document: import says so, at the key's line.
      expect(imported.ok).toBe(false);
      if (!imported.ok) expect(imported.errors.map((e) => e.message).join('\n')).toContain('__proto__');
    }
  });

  it('import reads a computed key as an own data property', () => {
    const { file } = parseModule("const v = { ['__proto__']: { x: 1 }, list: [{ ['__proto__']: 'y' }] };");
    const reader = new ExpressionReader(file, new Issues(file));
    const declaration = (file.statements[0] as ts.VariableStatement).declarationList.declarations[0]!;
    for (const read of [reader.value(declaration.initializer!), reader.json(declaration.initializer!)]) {
      const object = read as Record<string, unknown>;
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.hasOwn(object, '__proto__')).toBe(true);
      expect(JSON.stringify(object)).toBe('{"__proto__":{"x":1},"list":[{"__proto__":"y"}]}');
    }
  });

  it.each(['__proto__', "'__proto__'"])('import refuses `%s: …`, which sets a prototype in the module', (key) => {
    const refused = importFlow(`import { defineFlow } from '@weft/engine';
export default defineFlow({ id: 'p', name: 'P' }, async ({ input, step }) => {
  return step.transform('a', { value: { ${key}: { x: 1 } } });
});
`);
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.errors).toContainEqual(
        expect.objectContaining({ line: 3, message: expect.stringContaining("['__proto__']") }),
      );
  });
});
