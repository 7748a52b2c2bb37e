/**
 * A `code` step's source as a function. The sandbox runs a function *body* (with `args`,
 * `input`, `steps`), never the function itself: code-first flows and TS export write it as a
 * real function so editors highlight and check it, and `codeSourceOf` takes the body back out
 * of `fn.toString()`. The TS importer reads the same text from the file with
 * `codeSourceFromFunctionText`, so what runs and what is imported are the same string.
 *
 * The emitter indents every non-empty line of the source by two spaces inside
 * `function name(args, input, steps) {\n…\n}`; reading strips one leading and one trailing
 * line break and two spaces from each line that has them, so the round trip is exact.
 *
 * TS export writes the function as `function name(args: any, input: any, steps: any)` and, so
 * the module passes `tsc --strict`, gives every untyped parameter in the body `: any` too
 * (`(x, i) =>` → `(x: any, i: any) =>`, a bare `x =>` → `(x : any) =>`). Sources are
 * JavaScript, so those annotations are all the exporter's. Node's type stripping replaces each
 * with as many spaces (`(x     , i     ) =>`, `(x      ) =>`), and that is the text
 * `fn.toString()` returns at run time; the importer blanks them the same way before calling
 * `codeSourceFromFunctionText`. When the header is the exporter's, type-stripped
 * (`args     , input     , steps     `), those spaces are removed again, exactly where the
 * exporter put them; the exporter checks that this gives back its source and otherwise writes
 * the source as a string. A hand-written function (any other header) is read as it is.
 */

/** The parameters a code function receives, in the sandbox's order. */
export const CODE_PARAMETERS = ['args', 'input', 'steps'] as const;

const INDENT = '  ';

/** The exporter's `(args: any, input: any, steps: any)` after type stripping blanked `: any`. */
const STRIPPED_EXPORT_HEADER = CODE_PARAMETERS.map((name) => `${name}     `).join(', ');

// biome-ignore lint/suspicious/noExplicitAny: the sandbox hands plain JSON; a code body is untyped JavaScript.
export type CodeFunction = (args: any, input: any, steps: any) => unknown;

/** The sandbox source of a code function (its body, unindented). */
export function codeSourceOf(fn: CodeFunction): string {
  const source = codeSourceFromFunctionText(Function.prototype.toString.call(fn));
  if (source === undefined)
    throw new TypeError('a code step needs a function with a body: function (args, input, steps) { … }');
  return source;
}

/** The body of a function written as text (`function f(a) { … }`, `(a) => { … }`, `a => a * 2`). */
export function codeSourceFromFunctionText(text: string): string | undefined {
  const arrow = arrowIndex(text);
  const paramsEnd = arrow ?? closingParen(text);
  if (paramsEnd === undefined) return undefined;
  const rest = text.slice(paramsEnd);
  const afterArrow = arrow === undefined ? rest : rest.slice(2);
  const trimmed = afterArrow.trimStart();
  if (!trimmed.startsWith('{')) {
    // An expression-bodied arrow: the sandbox needs a body, so return the expression.
    return arrow === undefined ? undefined : `return ${trimmed.trim()};`;
  }
  const open = paramsEnd + (rest.length - trimmed.length);
  const close = text.lastIndexOf('}');
  if (close <= open) return undefined;
  const body = text.slice(open + 1, close);
  return unindentBody(isStrippedExport(text) ? removeBlankedAnnotations(body) : body);
}

/** Whether the parameter list is the exporter's with its `: any` blanked by type stripping. */
function isStrippedExport(text: string): boolean {
  const end = closingParen(text);
  return end !== undefined && text.slice(text.indexOf('(') + 1, end - 1) === STRIPPED_EXPORT_HEADER;
}

/**
 * Undoes the exporter's parameter annotations once blanked: a bare arrow parameter
 * `(x      ) =>` (it wrote `(x : any)`) becomes `x =>`, and the five spaces of a blanked `: any`
 * right after a parameter (a name, `]` or `}`) and before its `,` or `)` (spaces apart at
 * most) are dropped.
 */
function removeBlankedAnnotations(body: string): string {
  return body.replace(/\(([A-Za-z_$][\w$]*) {6}\)(?=\s*=>)/g, '$1').replace(/([\w$\]}]) {5}(?=[ \t]*[,)])/g, '$1');
}

/** The text to put between a code function's braces for `source`. */
export function indentCodeSource(source: string): string {
  const lines = source.split('\n').map((line) => (line === '' ? line : INDENT + line));
  return `\n${lines.join('\n')}\n`;
}

function unindentBody(body: string): string {
  let text = body.startsWith('\n') ? body.slice(1) : body;
  const lastBreak = text.lastIndexOf('\n');
  if (lastBreak !== -1 && text.slice(lastBreak + 1).trim() === '') text = text.slice(0, lastBreak);
  return text
    .split('\n')
    .map((line) => (line.startsWith(INDENT) ? line.slice(INDENT.length) : line))
    .join('\n');
}

/** Where `=>` is when the text is an arrow function (before any `{` of a body), else undefined. */
function arrowIndex(text: string): number | undefined {
  if (/^\s*(async\s+)?function\b/.test(text)) return undefined;
  const at = text.indexOf('=>');
  const brace = text.indexOf('{');
  return at === -1 || (brace !== -1 && brace < at) ? undefined : at;
}

/** The index just after the `)` that closes the first parameter list. */
function closingParen(text: string): number | undefined {
  const open = text.indexOf('(');
  if (open === -1) return undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return undefined;
}
