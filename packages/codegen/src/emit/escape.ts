/**
 * The one place where text from a flow (names, descriptions, literals, keys, prompts) becomes
 * part of the TypeScript an export writes. Everything that writes such text into a comment, a
 * string literal, a template literal or a property name goes through here, so that text can
 * only ever be text: no other file escapes anything.
 *
 * What makes text escape its token in JavaScript:
 * - a line terminator — `\n`, `\r`, U+2028, U+2029 — ends a `//` comment (and prettier would
 *   then format what follows as code), and `\r` in a template literal is read as `\n`;
 * - `*\/` ends a block comment;
 * - the quote, a backslash, and in a template literal a backtick or `${`;
 * - a lone surrogate cannot be written to a UTF-8 file at all (it becomes U+FFFD);
 * - and a `__proto__` property key sets a prototype instead of holding data.
 * Invisible characters that reorder or hide text on screen (bidi controls, zero-width space,
 * BOM, C0/C1 controls) are written as escapes too, so the module reads as what it does.
 *
 * A map's `as` becomes a variable name: `variableName` keeps it from shadowing the export's own.
 */
import { EXPR_HELPERS } from '@weft/engine';

/** JavaScript's line terminators (CRLF is one). */
const LINE_TERMINATORS = /\r\n|[\n\r\u2028\u2029]/g;

/**
 * Characters written as `\uXXXX` in literals and shown as `\uXXXX` in comments: controls (but
 * tab), line terminators, bidi controls (Trojan Source), zero-width space, word joiner, BOM, and
 * lone surrogates (a surrogate not part of a pair).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for.
  /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The same, to test for one (a global RegExp's `test` moves on from its last match). */
const HAS_UNSAFE = new RegExp(UNSAFE.source);

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A single-quoted string literal holding exactly `text`. */
export function stringLiteral(text: string): string {
  const body = text
    .replaceAll('\\', '\\\\')
    .replaceAll("'", "\\'")
    .replace(/[\n\r\t\b\f]/g, (char) => SHORT_ESCAPES[char]!)
    .replace(UNSAFE, unicodeEscape);
  return `'${body}'`;
}

/**
 * Text between the backticks of a template literal, reading as exactly `text`. Newlines stay
 * (a multi-line prompt reads as one); `\r` is escaped because a template literal reads a raw
 * `\r` as `\n`. `literalBraces`: for Weft's `template` tag, which reads `\{{` as a literal
 * `{{` — a literal `{{` is written so (the IR's own spelling).
 */
export function templateText(text: string, options: { literalBraces?: boolean } = {}): string {
  let out = text
    .replaceAll('\\', '\\\\')
    .replaceAll('`', '\\`')
    .replaceAll('${', '\\${')
    .replace(/[\r\b\f]/g, (char) => SHORT_ESCAPES[char]!)
    .replace(UNSAFE, unicodeEscape);
  if (options.literalBraces) out = out.replaceAll('{{', '\\\\{{');
  return out;
}

/** Text shown in a comment: what cannot be shown (see UNSAFE) as `\uXXXX`. */
function commentText(text: string): string {
  return text.replace(UNSAFE, unicodeEscape);
}

/**
 * `text` as `//` comment lines, one per line of the text whatever line terminator ends it.
 * For comments nobody reads back: unsafe characters are shown as `\uXXXX` and trailing spaces go.
 */
export function lineComment(text: string): string {
  return text
    .split(LINE_TERMINATORS)
    .map((line) => `// ${commentText(line)}`.trimEnd())
    .join('\n');
}

/**
 * Can `lineComment(text)` be read back as `text` (one `// ` stripped per line, lines joined with
 * `\n`)? Only when its lines are separated by `\n` alone, hold nothing shown as an escape, and
 * do not end in whitespace (the formatter trims it). Otherwise the text has to be a string.
 */
export function isLineCommentExact(text: string): boolean {
  return !HAS_UNSAFE.test(text) && text.split('\n').every((line) => !/\s$/.test(line));
}

/**
 * `text` inside a block or JSDoc comment (`/* … *\/`, `/** … *\/`): `*\/` cannot end it, and it
 * stays on one line (a line break in a block comment would be harmless, but ragged).
 */
export function blockCommentText(text: string): string {
  return commentText(text.replace(LINE_TERMINATORS, ' ')).replaceAll('*/', '*\\/');
}

/** `/** text *\/`. */
export function docComment(text: string): string {
  return `/** ${blockCommentText(text)} */`;
}

/** Words JavaScript or TypeScript reserve: not a variable's name, nor a bare function name. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await'.split(
    ' ',
  ),
);

/** Can `text` be written as it is where JavaScript expects a name (`a.name`, `{ name: 1 }`)? */
export function isIdentifierName(text: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text);
}

/**
 * A property name in an object literal, interface or type literal for key `key`: bare when it
 * is an identifier, else a string. `__proto__` is computed — `['__proto__']: v` defines an own
 * property, where `__proto__: v` and `'__proto__': v` would set the object's prototype.
 */
export function propertyKey(key: string): string {
  if (key === '__proto__') return `[${stringLiteral(key)}]`;
  return isIdentifierName(key) ? key : stringLiteral(key);
}

/**
 * Names the exported code itself reads inside a flow's body, in any target: the body's
 * parameters, the runtime functions steps call, and the module's own functions (code step
 * bodies are `<id>Code`, tools `<name>Tool`). A map variable by one of these names would shadow it.
 */
const EXPORT_NAMES: ReadonlySet<string> = new Set(
  'step steps input index iteration at args durable runLlm runTool runParallel runMap runLoop failure template eq ne helpers process defineFlow undefined'.split(
    ' ',
  ),
);
const ROOTS: ReadonlySet<string> = new Set(['input', 'steps', 'index', 'iteration', 'args']);

/**
 * The TypeScript name of a variable a map binds (its `as`, default `item`), and of every read of
 * it in an expression: the name itself, or `$name` when the export already uses that name in a
 * body (`eq`, `failure`, `s1Code`, …) or it starts with `$`. IR names cannot hold `$`, and
 * nothing the export writes starts with it, so the renaming neither clashes nor merges two names.
 * The expression roots (`input`, `steps`, `index`, `iteration`, `args`) are the export's own
 * parameters and stay as they are. A name that is no identifier cannot be written at all.
 */
export function variableName(name: string): string {
  if (ROOTS.has(name) || name === 'item') return name;
  // Any name the expression language reads as one (Unicode letters too); anything else is no name.
  if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(name)) {
    throw new Error(`'${name}' cannot name a variable in TypeScript`);
  }
  const taken =
    EXPORT_NAMES.has(name) ||
    EXPR_HELPERS.has(name) ||
    RESERVED_WORDS.has(name) ||
    /(?:Code|Tool)$/.test(name) ||
    name.startsWith('$');
  return taken ? `$${name}` : name;
}
