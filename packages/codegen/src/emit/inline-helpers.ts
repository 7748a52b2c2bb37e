/**
 * The expression runtime as plain TypeScript source, for targets that may not import
 * `@weft/engine` (Inngest, Temporal): `template`, `eq`/`ne` and each expression helper a flow
 * uses, written into the module itself with just the support code those call. Each is a copy
 * of the engine's (packages/engine/src/expr/helpers.ts) and must give the same result or fail
 * where it fails: inline-helpers.test.ts calls both on the same arguments. They check their
 * arguments like the engine's (a wrong type throws instead of coercing). The engine's size
 * budget is not reproduced, except `range`'s count: a small argument must not fill the
 * worker's memory.
 */
import { EXPR_LIMITS } from '@weft/engine';

const any = 'any';

type PartName =
  | 'undefinedAsNull'
  | 'render'
  | 'template'
  | 'eq'
  | 'ne'
  | 'checks'
  | 'deepEqual'
  | 'valueKey'
  | 'joinValues'
  | 'extreme'
  | 'keyList';

interface Part {
  source: string;
  /** The parts this one calls (written with it). */
  needs: readonly PartName[];
}

/** Support code, written in this order (only what the module needs). */
const PARTS: Record<PartName, Part> = {
  undefinedAsNull: {
    needs: [],
    source: `/** A JSON.stringify replacer: undefined becomes null, as Weft renders JSON (\`{ a: undefined }\` is \`{"a":null}\`). */
function undefinedAsNull(_key: string, value: unknown): unknown {
  return value === undefined ? null : value;
}`,
  },
  render: {
    needs: ['undefinedAsNull'],
    source: `/** How a value appears in a Weft \`{{ }}\` template: null/undefined as '', objects and arrays as JSON. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null || typeof value !== 'object' ? '' : JSON.stringify(value, undefinedAsNull);
}`,
  },
  template: {
    needs: ['render'],
    source: `/** Renders like a Weft \`{{ }}\` template (\`\\{{\` is a literal \`{{\`). */
function template(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = (index: number) => (strings[index] ?? '').replaceAll('\\\\{{', '{{');
  let out = text(0);
  values.forEach((value, index) => {
    out += render(value) + text(index + 1);
  });
  return out;
}`,
  },
  eq: {
    needs: [],
    source: `/** The IR's \`==\`: strict, except that null equals a missing value. */
function eq(a: unknown, b: unknown): boolean {
  return a === b || (a == null && b == null);
}`,
  },
  ne: {
    needs: ['eq'],
    source: `/** The IR's \`!=\`. */
function ne(a: unknown, b: unknown): boolean {
  return !eq(a, b);
}`,
  },
  checks: {
    needs: [],
    source: `function fault(helper: string, what: string, value: unknown): never {
  throw new TypeError(\`\${helper}(): \${what}, got \${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}\`);
}
const str = (h: string, v: unknown): string => (typeof v === 'string' ? v : fault(h, 'expected a string', v));
const num = (h: string, v: unknown): number => (typeof v === 'number' ? v : fault(h, 'expected a number', v));
const int = (h: string, v: unknown, min: number, max: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fault(h, \`expected an integer from \${min} to \${max}\`, v);
const arr = (h: string, v: unknown): any[] => (Array.isArray(v) ? v : fault(h, 'expected an array', v));
const obj = (h: string, v: unknown): Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, any>) : fault(h, 'expected an object', v);`,
  },
  deepEqual: {
    needs: [],
    source: `/** Structural equality, as Weft compares values: key order does not matter, NaN equals NaN. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && deepEqual(x[k], y[k]));
}`,
  },
  valueKey: {
    needs: [],
    source: `/** A text that is the same for deep-equal values (object keys sorted), and differs for null and undefined. */
function valueKey(v: unknown): string {
  if (typeof v === 'string') return 's' + v;
  if (typeof v === 'number') return 'n' + String(v);
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v === undefined) return 'u';
  if (v === null) return 'z';
  if (Array.isArray(v)) return '[' + v.map(valueKey).join(',') + ']';
  if (typeof v !== 'object') return 'x';
  const o = v as Record<string, unknown>;
  return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + valueKey(o[k])).join(',') + '}';
}`,
  },
  joinValues: {
    needs: ['checks'],
    source: `/** Array.prototype.join, except that an object fails instead of becoming '[object Object]'. */
function joinValues(values: readonly unknown[], separator: string): string {
  return values
    .map((v) =>
      typeof v === 'string' ? v
      : typeof v === 'number' || typeof v === 'boolean' ? String(v)
      : Array.isArray(v) ? joinValues(v, ',')
      : v == null ? ''
      : fault('join', 'cannot join objects (use json())', v),
    )
    .join(separator);
}`,
  },
  extreme: {
    needs: ['checks'],
    source: `/** min()/max() of numbers or of one array of numbers. A loop, not Math.min: NaN wins, a tie keeps the first (0 or -0), and a long array cannot overflow the call stack. */
function extreme(helper: string, args: unknown[], sign: 1 | -1): number | undefined {
  const values: number[] = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v: unknown) => num(helper, v));
  let best: number | undefined;
  for (const v of values) if (best === undefined || (v - best) * sign > 0 || Number.isNaN(v)) best = v;
  return best;
}`,
  },
  keyList: {
    needs: ['checks'],
    source: `/** pick()/omit() keys: given as arguments or as one array, each a string. */
function keyList(helper: string, keys: unknown[]): Set<string> {
  return new Set((keys.length === 1 && Array.isArray(keys[0]) ? keys[0] : keys).map((k: unknown) => str(helper, k)));
}`,
  },
};

interface HelperSource {
  source: string;
  needs?: readonly PartName[];
}

/** Each helper as a property of the `helpers` object, in the engine's argument order. */
const HELPERS: Record<string, HelperSource> = {
  len: {
    source: `(x: ${any}): number => (typeof x === 'string' || Array.isArray(x) ? x.length : x == null ? 0 : Object.keys(obj('len', x)).length)`,
  },
  keys: { source: `(o: ${any}): string[] => Object.keys(obj('keys', o))` },
  values: { source: `(o: ${any}): any[] => Object.values(obj('values', o))` },
  entries: { source: `(o: ${any}): [string, any][] => Object.entries(obj('entries', o))` },
  lower: { source: `(s: ${any}): string => str('lower', s).toLowerCase()` },
  upper: { source: `(s: ${any}): string => str('upper', s).toUpperCase()` },
  trim: { source: `(s: ${any}): string => str('trim', s).trim()` },
  json: {
    needs: ['undefinedAsNull'],
    source: `(v: ${any}, indent?: ${any}): string => JSON.stringify(v, undefinedAsNull, indent === undefined ? undefined : int('json', indent, 0, 10))`,
  },
  parseJson: { source: `(s: ${any}): any => JSON.parse(str('parseJson', s))` },
  join: {
    needs: ['joinValues'],
    source: `(a: ${any}, separator?: ${any}): string => joinValues(arr('join', a), separator === undefined ? ',' : str('join', separator))`,
  },
  split: { source: `(s: ${any}, separator: ${any}): string[] => str('split', s).split(str('split', separator))` },
  includes: {
    source: `(c: ${any}, x: ${any}): boolean => (typeof c === 'string' ? c.includes(str('includes', x)) : arr('includes', c).includes(x))`,
  },
  startsWith: { source: `(s: ${any}, x: ${any}): boolean => str('startsWith', s).startsWith(str('startsWith', x))` },
  endsWith: { source: `(s: ${any}, x: ${any}): boolean => str('endsWith', s).endsWith(str('endsWith', x))` },
  // The replacement is taken as it is: a function, so that `$&` and `$$` are not patterns.
  replace: {
    source: `(s: ${any}, a: ${any}, b: ${any}): string => {
    const [text, search, replacement] = [str('replace', s), str('replace', a), str('replace', b)];
    return text.replaceAll(search, () => replacement);
  }`,
  },
  slice: {
    source: `(x: ${any}, start: ${any}, end?: ${any}): any => {
    const [from, to] = [num('slice', start), end === undefined ? undefined : num('slice', end)];
    return typeof x === 'string' ? x.slice(from, to) : arr('slice', x).slice(from, to);
  }`,
  },
  concat: {
    source: `(first: ${any}, ...rest: any[]): any =>
    Array.isArray(first) ? first.concat(...rest) : [first, ...rest].map((v) => (typeof v === 'object' || v === undefined ? fault('concat', 'expected a string, number or boolean', v) : String(v))).join('')`,
  },
  first: {
    source: `(x: ${any}): any => (x == null ? undefined : typeof x === 'string' ? x.at(0) : arr('first', x).at(0))`,
  },
  last: {
    source: `(x: ${any}): any => (x == null ? undefined : typeof x === 'string' ? x.at(-1) : arr('last', x).at(-1))`,
  },
  round: {
    source: `(x: ${any}, digits?: ${any}): number => {
    const factor = 10 ** (digits === undefined ? 0 : int('round', digits, 0, 15));
    return Math.round(num('round', x) * factor) / factor;
  }`,
  },
  floor: { source: `(x: ${any}): number => Math.floor(num('floor', x))` },
  ceil: { source: `(x: ${any}): number => Math.ceil(num('ceil', x))` },
  abs: { source: `(x: ${any}): number => Math.abs(num('abs', x))` },
  min: { needs: ['extreme'], source: `(...args: any[]): number | undefined => extreme('min', args, -1)` },
  max: { needs: ['extreme'], source: `(...args: any[]): number | undefined => extreme('max', args, 1)` },
  sum: {
    source: `(a: ${any}): number => arr('sum', a).reduce((total: number, v: unknown) => total + num('sum', v), 0)`,
  },
  avg: {
    source: `(a: ${any}): number | undefined => {
    const values = arr('avg', a).map((v: unknown) => num('avg', v));
    return values.length === 0 ? undefined : values.reduce((t, n) => t + n, 0) / values.length;
  }`,
  },
  number: {
    source: `(...args: any[]): any => {
    const [v] = args;
    const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    if (Number.isFinite(n)) return n;
    if (args.length > 1) return args[1];
    throw new TypeError(\`number(): cannot convert \${JSON.stringify(v)} to a number\`);
  }`,
  },
  string: { needs: ['render'], source: `(v: ${any}): string => render(v)` },
  boolean: { source: `(v: ${any}): boolean => !!v` },
  isArray: { source: `(v: ${any}): boolean => Array.isArray(v)` },
  isObject: { source: `(v: ${any}): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)` },
  isString: { source: `(v: ${any}): boolean => typeof v === 'string'` },
  isNumber: { source: `(v: ${any}): boolean => typeof v === 'number' && !Number.isNaN(v)` },
  isBoolean: { source: `(v: ${any}): boolean => typeof v === 'boolean'` },
  coalesce: { source: `(...args: any[]): any => args.find((v) => v !== null && v !== undefined)` },
  default: { source: `(v: ${any}, fallback: ${any}): any => v ?? fallback` },
  contains: {
    needs: ['deepEqual'],
    source: `(c: ${any}, x: ${any}): boolean => {
    if (c == null) return false;
    if (typeof c === 'string') return c.includes(str('contains', x));
    if (Array.isArray(c)) return c.some((v) => deepEqual(v, x));
    return Object.hasOwn(obj('contains', c), str('contains', x));
  }`,
  },
  unique: {
    needs: ['valueKey'],
    source: `(a: ${any}): any[] => {
    const seen = new Set<string>();
    return arr('unique', a).filter((v) => {
      const key = valueKey(v);
      return !seen.has(key) && Boolean(seen.add(key));
    });
  }`,
  },
  flatten: {
    source: `(a: ${any}, depth?: ${any}): any[] => arr('flatten', a).flat(depth === undefined ? 1 : int('flatten', depth, 0, 100))`,
  },
  range: {
    source: `(...args: any[]): number[] => {
    const [start, end] = args.length === 1 ? [0, num('range', args[0])] : [num('range', args[0]), num('range', args[1])];
    const step = args[2] === undefined ? 1 : num('range', args[2]);
    if (step === 0 || !Number.isFinite(step)) throw new TypeError('range(): step must be a non-zero number');
    const count = Math.max(0, Math.ceil((end - start) / step));
    if (!(count <= ${EXPR_LIMITS.range})) throw new RangeError(\`range(): at most ${EXPR_LIMITS.range} numbers (asked for \${count})\`);
    return Array.from({ length: count }, (_, i) => start + i * step);
  }`,
  },
  pick: {
    needs: ['keyList'],
    source: `(o: ${any}, ...keys: any[]): Record<string, any> => {
    const wanted = keyList('pick', keys);
    return Object.fromEntries(Object.entries(o == null ? {} : obj('pick', o)).filter(([key]) => wanted.has(key)));
  }`,
  },
  omit: {
    needs: ['keyList'],
    source: `(o: ${any}, ...keys: any[]): Record<string, any> => {
    const unwanted = keyList('omit', keys);
    return Object.fromEntries(Object.entries(o == null ? {} : obj('omit', o)).filter(([key]) => !unwanted.has(key)));
  }`,
  },
  // fromEntries, not Object.assign: a `__proto__` key stays a key instead of setting the prototype.
  merge: {
    source: `(...args: any[]): Record<string, any> =>
    Object.fromEntries(args.filter((o) => o != null).flatMap((o) => Object.entries(obj('merge', o))))`,
  },
};

/**
 * Source for the helpers `names` (as a `helpers` object plus bare names), the runtime
 * functions asked for, and the support code they call.
 */
export function inlineRuntime(options: {
  helpers: ReadonlySet<string>;
  runtime: ReadonlySet<'eq' | 'ne' | 'template'>;
}): string {
  const names = [...options.helpers].sort();
  // Own properties only: a name such as `toString` must not find Object.prototype's.
  const unknown = names.filter((name) => !Object.hasOwn(HELPERS, name));
  if (unknown.length > 0) throw new Error(`no inline source for helper(s) ${unknown.join(', ')}`);
  const included = new Set<PartName>();
  const include = (part: PartName): void => {
    if (included.has(part)) return;
    included.add(part);
    for (const need of PARTS[part].needs) include(need);
  };
  for (const part of options.runtime) include(part);
  if (names.length > 0) include('checks');
  for (const name of names) for (const part of HELPERS[name]?.needs ?? []) include(part);
  const parts = (Object.keys(PARTS) as PartName[])
    .filter((part) => included.has(part))
    .map((part) => PARTS[part].source);
  if (names.length > 0) {
    const entries = names.map((name) => `${name}: ${HELPERS[name]?.source},`);
    parts.push(`/** The Weft expression helpers this flow uses. */\nconst helpers = {\n${entries.join('\n')}\n};`);
    const bare = names.filter((name) => name !== 'default');
    if (bare.length > 0) parts.push(`const { ${bare.join(', ')} } = helpers;`);
  }
  return parts.join('\n\n');
}
