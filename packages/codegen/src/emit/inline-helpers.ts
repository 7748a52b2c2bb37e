/**
 * The expression runtime as plain TypeScript source, for targets that may not import
 * `@weft/engine` (Inngest, Temporal): `template`, `eq`/`ne` and each expression helper a flow
 * uses, written into the module itself. They check their arguments like the engine's helpers
 * (a wrong type throws instead of coercing); the engine's size budget is not reproduced.
 */

const any = 'any';

/** `template\`…\``: renders values as a `{{ }}` template does (null as '', objects as JSON). */
export const TEMPLATE_SOURCE = `/** Renders like a Weft \`{{ }}\` template: null/undefined as '', objects and arrays as JSON. */
function template(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = (index: number) => (strings[index] ?? '').replaceAll('\\\\{{', '{{');
  let out = text(0);
  values.forEach((value, index) => {
    out += render(value) + text(index + 1);
  });
  return out;
}

function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null || typeof value !== 'object' ? '' : JSON.stringify(value);
}`;

export const EQ_SOURCE = `/** The IR's \`==\`: strict, except that null equals a missing value. */
function eq(a: unknown, b: unknown): boolean {
  return a === b || (a == null && b == null);
}`;

export const NE_SOURCE = `/** The IR's \`!=\`. */
function ne(a: unknown, b: unknown): boolean {
  return !eq(a, b);
}`;

const CHECKS = `function fault(helper: string, what: string, value: unknown): never {
  throw new TypeError(\`\${helper}(): \${what}, got \${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}\`);
}
const str = (h: string, v: unknown): string => (typeof v === 'string' ? v : fault(h, 'expected a string', v));
const num = (h: string, v: unknown): number => (typeof v === 'number' ? v : fault(h, 'expected a number', v));
const arr = (h: string, v: unknown): any[] => (Array.isArray(v) ? v : fault(h, 'expected an array', v));
const obj = (h: string, v: unknown): Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, any>) : fault(h, 'expected an object', v);`;

/** Each helper as a property of the `helpers` object, in the engine's argument order. */
const HELPER_SOURCES: Record<string, string> = {
  len: `(x: ${any}): number => (typeof x === 'string' || Array.isArray(x) ? x.length : x == null ? 0 : Object.keys(obj('len', x)).length)`,
  keys: `(o: ${any}): string[] => Object.keys(obj('keys', o))`,
  values: `(o: ${any}): any[] => Object.values(obj('values', o))`,
  entries: `(o: ${any}): [string, any][] => Object.entries(obj('entries', o))`,
  lower: `(s: ${any}): string => str('lower', s).toLowerCase()`,
  upper: `(s: ${any}): string => str('upper', s).toUpperCase()`,
  trim: `(s: ${any}): string => str('trim', s).trim()`,
  json: `(v: ${any}, indent?: number): string => JSON.stringify(v ?? null, null, indent)`,
  parseJson: `(s: ${any}): any => JSON.parse(str('parseJson', s))`,
  join: `(a: ${any}, separator = ','): string => arr('join', a).join(separator)`,
  split: `(s: ${any}, separator: string): string[] => str('split', s).split(separator)`,
  includes: `(c: ${any}, x: ${any}): boolean => (typeof c === 'string' ? c.includes(str('includes', x)) : arr('includes', c).includes(x))`,
  startsWith: `(s: ${any}, x: ${any}): boolean => str('startsWith', s).startsWith(str('startsWith', x))`,
  endsWith: `(s: ${any}, x: ${any}): boolean => str('endsWith', s).endsWith(str('endsWith', x))`,
  replace: `(s: ${any}, a: ${any}, b: ${any}): string => str('replace', s).replaceAll(str('replace', a), str('replace', b))`,
  slice: `(x: ${any}, start: number, end?: number): any => (typeof x === 'string' ? x.slice(start, end) : arr('slice', x).slice(start, end))`,
  concat: `(first: ${any}, ...rest: any[]): any =>
    Array.isArray(first) ? first.concat(...rest) : [first, ...rest].map((v) => (typeof v === 'object' || v === undefined ? fault('concat', 'expected a string, number or boolean', v) : String(v))).join('')`,
  first: `(x: ${any}): any => (x == null ? undefined : typeof x === 'string' ? x.at(0) : arr('first', x).at(0))`,
  last: `(x: ${any}): any => (x == null ? undefined : typeof x === 'string' ? x.at(-1) : arr('last', x).at(-1))`,
  round: `(x: ${any}, digits = 0): number => Math.round(num('round', x) * 10 ** digits) / 10 ** digits`,
  floor: `(x: ${any}): number => Math.floor(num('floor', x))`,
  ceil: `(x: ${any}): number => Math.ceil(num('ceil', x))`,
  abs: `(x: ${any}): number => Math.abs(num('abs', x))`,
  min: `(...args: any[]): number | undefined => {
    const values: number[] = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v: unknown) => num('min', v));
    return values.length === 0 ? undefined : Math.min(...values);
  }`,
  max: `(...args: any[]): number | undefined => {
    const values: number[] = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v: unknown) => num('max', v));
    return values.length === 0 ? undefined : Math.max(...values);
  }`,
  sum: `(a: ${any}): number => arr('sum', a).reduce((total: number, v: unknown) => total + num('sum', v), 0)`,
  avg: `(a: ${any}): number | undefined => {
    const values = arr('avg', a).map((v: unknown) => num('avg', v));
    return values.length === 0 ? undefined : values.reduce((t, n) => t + n, 0) / values.length;
  }`,
  number: `(...args: any[]): any => {
    const [v] = args;
    const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    if (Number.isFinite(n)) return n;
    if (args.length > 1) return args[1];
    throw new TypeError(\`number(): cannot convert \${JSON.stringify(v)} to a number\`);
  }`,
  string: `(v: ${any}): string => render(v)`,
  boolean: `(v: ${any}): boolean => !!v`,
  isArray: `(v: ${any}): boolean => Array.isArray(v)`,
  isObject: `(v: ${any}): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)`,
  isString: `(v: ${any}): boolean => typeof v === 'string'`,
  isNumber: `(v: ${any}): boolean => typeof v === 'number' && !Number.isNaN(v)`,
  isBoolean: `(v: ${any}): boolean => typeof v === 'boolean'`,
  coalesce: `(...args: any[]): any => args.find((v) => v !== null && v !== undefined)`,
  default: `(v: ${any}, fallback: ${any}): any => v ?? fallback`,
  contains: `(c: ${any}, x: ${any}): boolean => {
    if (c == null) return false;
    if (typeof c === 'string') return c.includes(str('contains', x));
    if (Array.isArray(c)) return c.some((v) => JSON.stringify(v) === JSON.stringify(x));
    return Object.hasOwn(obj('contains', c), str('contains', x));
  }`,
  unique: `(a: ${any}): any[] => {
    const seen = new Set<string>();
    return arr('unique', a).filter((v) => !seen.has(JSON.stringify(v)) && Boolean(seen.add(JSON.stringify(v))));
  }`,
  flatten: `(a: ${any}, depth = 1): any[] => arr('flatten', a).flat(depth)`,
  range: `(...args: any[]): number[] => {
    const [start, end] = args.length === 1 ? [0, num('range', args[0])] : [num('range', args[0]), num('range', args[1])];
    const step = args[2] === undefined ? 1 : num('range', args[2]);
    if (step === 0) throw new TypeError('range(): step must be a non-zero number');
    return Array.from({ length: Math.max(0, Math.ceil((end - start) / step)) }, (_, i) => start + i * step);
  }`,
  pick: `(o: ${any}, ...keys: any[]): Record<string, any> => {
    const wanted = new Set<string>(keys.length === 1 && Array.isArray(keys[0]) ? keys[0] : keys);
    return Object.fromEntries(Object.entries(o == null ? {} : obj('pick', o)).filter(([key]) => wanted.has(key)));
  }`,
  omit: `(o: ${any}, ...keys: any[]): Record<string, any> => {
    const unwanted = new Set<string>(keys.length === 1 && Array.isArray(keys[0]) ? keys[0] : keys);
    return Object.fromEntries(Object.entries(o == null ? {} : obj('omit', o)).filter(([key]) => !unwanted.has(key)));
  }`,
  merge: `(...args: any[]): Record<string, any> => Object.assign({}, ...args.filter((o) => o != null).map((o) => obj('merge', o)))`,
};

/**
 * Source for the helpers `names` (as a `helpers` object plus bare names), and what they need.
 * `render` comes with `template`: `string()` needs it, so it is included when either is used.
 */
export function inlineRuntime(options: {
  helpers: ReadonlySet<string>;
  runtime: ReadonlySet<'eq' | 'ne' | 'template'>;
}): string {
  const parts: string[] = [];
  const needsRender = options.runtime.has('template') || options.helpers.has('string');
  if (needsRender) parts.push(TEMPLATE_SOURCE);
  if (options.runtime.has('eq') || options.runtime.has('ne')) parts.push(EQ_SOURCE);
  if (options.runtime.has('ne')) parts.push(NE_SOURCE);
  const names = [...options.helpers].sort();
  if (names.length > 0) {
    const unknown = names.filter((name) => HELPER_SOURCES[name] === undefined);
    if (unknown.length > 0) throw new Error(`no inline source for helper(s) ${unknown.join(', ')}`);
    const entries = names.map((name) => `${name}: ${HELPER_SOURCES[name]},`);
    parts.push(
      `${CHECKS}\n\n/** The Weft expression helpers this flow uses. */\nconst helpers = {\n${entries.join('\n')}\n};`,
    );
    const bare = names.filter((name) => name !== 'default');
    if (bare.length > 0) parts.push(`const { ${bare.join(', ')} } = helpers;`);
  }
  return parts.join('\n\n');
}

export const INLINE_HELPER_NAMES: readonly string[] = Object.keys(HELPER_SOURCES);
