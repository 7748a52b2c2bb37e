/**
 * The `weft` target: the engine's code-first API (`defineFlow` + `step.<type>`), which runs on
 * every adapter and which `importFlow` reads back into IR v1. The module is
 *
 *   imports from '@weft/engine' → helper names → `interface Input` (from the input schema) →
 *   one function per code step → `export default defineFlow<Input>(meta, async ({ input, step, steps }) => …)`
 *
 * Code step bodies are written verbatim (`// prettier-ignore`), two spaces in, except that an
 * untyped parameter gets `: any` so the module passes `tsc --strict` (emit/code-params.ts): what
 * runs in the sandbox (Node's type stripping blanks the annotations, the engine drops the
 * blanks) and what imports back is the IR source exactly. A source for which that would not
 * hold, or that does not parse, is written as a string.
 */
import { type Flow, type FlowTool, indentCodeSource } from '@weft/engine';
import ts from 'typescript';
import { annotateParameters, codeSourceFromTypeScript } from '../emit/code-params.ts';
import { docComment, lineComment, propertyKey } from '../emit/escape.ts';
import { isBareHelper } from '../emit/expression.ts';
import { typeDeclaration } from '../emit/json-schema.ts';
import { SecretNames } from '../emit/secrets.ts';
import { jsonLiteral, ModuleNeeds } from '../emit/values.ts';
import type { ExportTarget } from './target.ts';
import { emitHeaders, emitSteps, type StepEmitter } from './weft-steps.ts';

export const CODE_FUNCTION_PARAMS = 'args: any, input: any, steps: any';

export const weftTarget: ExportTarget = {
  name: 'weft',
  emit(flow) {
    const needs = new ModuleNeeds();
    const secrets = new SecretNames();
    const codeFunctions: string[] = [];
    const emitter: StepEmitter = {
      needs,
      secrets,
      codeFunction(stepId, source) {
        const name = `${stepId}Code`;
        const annotated = annotateParameters(source, { bareArrow: ' : any)' });
        const text = `function ${name}(${CODE_FUNCTION_PARAMS}) {${indentCodeSource(annotated)}}`;
        // A source that is not a clean function body (a syntax error, say) stays a string.
        if (!isCleanFunction(text, source)) return jsonLiteral(source);
        codeFunctions.push(
          [
            lineComment(
              `The body of code step '${stepId}'. It runs in the sandbox, which passes args, input and steps only.`,
            ),
            ...(annotated === source
              ? []
              : ['// Its untyped parameters get `: any` for tsc --strict; the sandbox and `weft import` drop them.']),
            `// prettier-ignore\n${text}`,
          ].join('\n'),
        );
        return name;
      },
    };
    const hasOutput = flow.output !== undefined;
    const body = emitSteps(flow.steps, emitter, !hasOutput);
    const output = hasOutput ? `\nreturn ${needs.value(flow.output)};` : '';
    const meta = emitMeta(flow, emitter);

    const runtime = [...needs.runtime].sort();
    const imports = ['defineFlow', ...(needs.helpers.size > 0 ? ['helpers'] : []), ...runtime];
    const bare = [...needs.helpers].filter(isBareHelper).sort();
    return [
      lineComment(
        `Flow '${flow.id}'${flow.version === undefined ? '' : ` v${flow.version}`}, exported by Weft. \`weft import\` reads this file back into the editor.`,
      ),
      secrets.names.size > 0
        ? lineComment(`Secrets are not written here: set ${[...secrets.names].join(', ')} in the environment.`)
        : '',
      `import { ${imports.join(', ')} } from '@weft/engine';`,
      bare.length > 0 ? `\nconst { ${bare.join(', ')} } = helpers;` : '',
      `\n${docComment(`The run input of '${flow.name}'.`)}\n${typeDeclaration('Input', flow.input)}`,
      ...codeFunctions.map((text) => `\n${text}`),
      `\nexport default defineFlow<Input>(${meta}, async ({ input, step, steps }) => {\n${body}${output}\n});`,
    ]
      .filter((line) => line !== '')
      .join('\n');
  },
};

function emitMeta(flow: Flow, emitter: StepEmitter): string {
  const fields: string[] = [`id: ${jsonLiteral(flow.id)}`, `name: ${jsonLiteral(flow.name)}`];
  if (flow.description !== undefined) fields.push(`description: ${jsonLiteral(flow.description)}`);
  if (flow.version !== undefined) fields.push(`version: ${flow.version}`);
  if (flow.input !== undefined) fields.push(`input: ${jsonLiteral(flow.input)}`);
  if (flow.tools !== undefined) {
    // Tool definitions stay IR (their templates read the call's `args`), except secret headers.
    const tools = Object.entries(flow.tools).map(
      ([name, tool]) => `${propertyKey(name)}: ${emitTool(name, tool, emitter)}`,
    );
    fields.push(`tools: { ${tools.join(', ')} }`);
  }
  return `{ ${fields.join(', ')} }`;
}

function emitTool(name: string, tool: FlowTool, emitter: StepEmitter): string {
  const fields = Object.entries(tool).map(([key, value]) => {
    if (key !== 'http' || tool.http?.headers === undefined) return `${propertyKey(key)}: ${jsonLiteral(value)}`;
    const http = Object.entries(tool.http).map(([httpKey, httpValue]) =>
      httpKey === 'headers'
        ? `${propertyKey(httpKey)}: ${emitHeaders(name, tool.http!.headers!, emitter, jsonLiteral)}`
        : `${propertyKey(httpKey)}: ${jsonLiteral(httpValue)}`,
    );
    return `${propertyKey(key)}: { ${http.join(', ')} }`;
  });
  return `{ ${fields.join(', ')} }`;
}

function isCleanFunction(text: string, source: string): boolean {
  const file = ts.createSourceFile('code.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics;
  return (
    diagnostics.length === 0 &&
    file.statements.length === 1 &&
    ts.isFunctionDeclaration(file.statements[0]!) &&
    codeSourceFromTypeScript(text) === source
  );
}
