import { describe, expect, it } from 'vitest';
import { STEP_TYPES } from '../steps/registry.ts';
import { errorsOf, flow, issue, t } from '../test-support/validation.ts';
import type { ValidationIssue } from './issues.ts';
import { MAX_STEP_NESTING, validateFlow } from './validate.ts';

describe('validateFlow: a valid flow', () => {
  it('returns the parsed flow with defaults applied', () => {
    const result = validateFlow(flow([{ ...t('a'), retry: { maxAttempts: 2 } }]));
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.flow.steps[0]!.retry).toEqual({ maxAttempts: 2, backoff: 'exponential', initialDelay: '1s' });
  });
});

describe('validateFlow: the document', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'flow', 'a flow must be a JSON object'],
    ['an array', [], 'a flow must be a JSON object'],
    [
      'no irVersion',
      { id: 'x', name: 'X', steps: [] },
      'irVersion must be a positive integer (this Weft reads irVersion 1)',
    ],
    [
      'irVersion 0',
      { ...flow([t('a')]), irVersion: 0 },
      'irVersion must be a positive integer (this Weft reads irVersion 1)',
    ],
    [
      'irVersion "1"',
      { ...flow([t('a')]), irVersion: '1' },
      'irVersion must be a positive integer (this Weft reads irVersion 1)',
    ],
    [
      'a newer irVersion',
      { ...flow([t('a')]), irVersion: 7 },
      'irVersion 7 was written by a newer Weft; this one reads up to 1',
    ],
  ])('rejects %s at irVersion', (_name, doc, message) => {
    expect(errorsOf(doc)).toEqual([issue(null, 'irVersion', message)]);
  });

  it.each<[string, Record<string, unknown>, ValidationIssue]>([
    ['no steps', { steps: [] }, issue(null, 'steps', 'a flow needs at least one step')],
    ['a bad flow id', { id: 'Main Flow' }, issue(null, 'id', /must be a slug/)],
    ['an empty name', { name: '' }, issue(null, 'name', />=1 characters/)],
    ['an unknown top-level field', { stpes: [] }, issue(null, '(flow)', /Unrecognized key: "stpes"/)],
    [
      'a bad tool name',
      { tools: { 'bad name': { description: 'd', parameters: {}, source: 'x' } } },
      issue(null, 'tools["bad name"]', /tool names are identifiers/),
    ],
  ])('rejects %s', (_name, change, expected) => {
    expect(errorsOf({ ...flow([t('a')]), ...change })).toContainEqual(expected);
  });

  it('names every step type when a type is unknown', () => {
    expect(errorsOf(flow([t('a'), { id: 'b', type: 'email', to: 'x' }]))).toEqual([
      issue('b', 'steps[1].type', `unknown step type; expected one of: ${STEP_TYPES.join(', ')}`),
    ]);
  });

  it('pins schema problems in nested steps to the innermost step', () => {
    const doc = flow([
      { id: 'outer', type: 'loop', while: '=true', steps: [{ id: 'inner', type: 'sleep', duration: 'later' }] },
    ]);
    expect(errorsOf(doc)).toEqual([issue('inner', 'steps[0].steps[0].duration', /must be a duration/)]);
  });

  it('still reports duplicate ids when the schema rejects something else in the flow', () => {
    const doc = flow([t('a'), { id: 'b', type: 'nope' }, t('a')]);
    const errors = errorsOf(doc);
    expect(errors).toContainEqual(issue('a', 'steps[2].id', "duplicate step id 'a' (first used at steps[0])"));
    expect(errors.some((error) => error.path === 'steps[1].type')).toBe(true);
  });

  it('accepts steps nested up to MAX_STEP_NESTING levels', () => {
    const nest = (levels: number) => {
      let steps: unknown[] = [t('leaf')];
      for (let depth = 1; depth < levels; depth++)
        steps = [{ id: `s${depth}`, type: 'branch', cases: [{ when: '=true', steps }] }];
      return flow(steps);
    };
    expect(errorsOf(nest(MAX_STEP_NESTING))).toEqual([]);
    expect(errorsOf(nest(MAX_STEP_NESTING + 1))).toEqual([
      issue(
        's1',
        expect.stringMatching(/^steps\[0\]\.cases/) as unknown as string,
        `steps are nested more than ${MAX_STEP_NESTING} levels deep`,
      ),
    ]);
  });

  it('refuses steps nested deeper than a flow can sensibly be, without overflowing the stack', () => {
    let steps: unknown[] = [t('leaf')];
    for (let depth = 0; depth < 5000; depth++) steps = [{ id: `s${depth}`, type: 'loop', while: '=false', steps }];
    const errors = errorsOf(flow(steps));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/nested more than \d+ levels deep/);
    expect(errors[0]!.path).toMatch(/^steps(\[0\]\.steps)+$/);
  });
});

describe('validateFlow: step ids', () => {
  it('rejects a duplicate id at the top level', () => {
    expect(errorsOf(flow([t('a'), t('b'), t('a')]))).toEqual([
      issue('a', 'steps[2].id', "duplicate step id 'a' (first used at steps[0])"),
    ]);
  });

  it.each<[string, unknown[], ValidationIssue]>([
    [
      'inside a branch arm',
      [t('x'), { id: 'b', type: 'branch', cases: [{ when: '=true', steps: [t('x')] }] }],
      issue('x', 'steps[1].cases[0].steps[0].id', "duplicate step id 'x' (first used at steps[0])"),
    ],
    [
      'across two arms',
      [{ id: 'b', type: 'branch', cases: [{ when: '=true', steps: [t('x')] }], else: [t('x')] }],
      issue('x', 'steps[0].else[0].id', "duplicate step id 'x' (first used at steps[0].cases[0].steps[0])"),
    ],
    [
      'across parallel branches',
      [{ id: 'p', type: 'parallel', branches: { a: [t('x')], b: [t('x')] } }],
      issue('x', 'steps[0].branches.b[0].id', "duplicate step id 'x' (first used at steps[0].branches.a[0])"),
    ],
    [
      'a map body reusing its own id',
      [{ id: 'm', type: 'map', items: '=[]', steps: [t('m')] }],
      issue('m', 'steps[0].steps[0].id', "duplicate step id 'm' (first used at steps[0])"),
    ],
  ])('rejects a duplicate id %s', (_name, steps, expected) => {
    expect(errorsOf(flow(steps))).toEqual([expected]);
  });

  it('rejects an id that is not an identifier', () => {
    expect(errorsOf(flow([t('my-step')]))).toEqual([issue('my-step', 'steps[0].id', /must be an identifier/)]);
  });
});

describe('validateFlow: tools', () => {
  const tools = { shout: { description: 'Shouts', parameters: {}, source: 'return args.s.toUpperCase()' } };

  it('accepts tools the flow defines or the host registers', () => {
    const doc = flow([{ id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'x', tools: ['shout', 'search'] }], {
      tools,
    });
    expect(errorsOf(doc, { hostTools: ['search'] })).toEqual([]);
  });

  it('rejects unknown tools on llm and tool steps, listing the known ones', () => {
    const doc = flow(
      [
        { id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'x', tools: ['shout', 'serch'] },
        { id: 'call', type: 'tool', tool: 'nope' },
      ],
      { tools },
    );
    expect(errorsOf(doc, { hostTools: ['search'] })).toEqual([
      issue('ask', 'steps[0].tools[1]', "unknown tool 'serch' (known tools: shout, search)"),
      issue('call', 'steps[1].tool', "unknown tool 'nope' (known tools: shout, search)"),
    ]);
    expect(errorsOf(flow([{ id: 'call', type: 'tool', tool: 'nope' }]))).toEqual([
      issue('call', 'steps[0].tool', "unknown tool 'nope' (known tools: none)"),
    ]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['none of source, flow, http', {}],
    ['both source and flow', { source: 'return 1', flow: 'other' }],
    ['all three', { source: 'return 1', flow: 'other', http: { url: 'https://x' } }],
  ])('rejects a tool definition with %s', (_name, kinds) => {
    const doc = flow([t('a')], { tools: { mytool: { description: 'd', parameters: {}, ...kinds } } });
    expect(errorsOf(doc)).toContainEqual(
      issue(null, 'tools.mytool', 'a tool needs exactly one of source, flow or http'),
    );
  });

  it('lets an http tool read args and input, but not steps (a tool may be called from anywhere)', () => {
    const ok = { url: '{{ input.apiBase }}/{{ args.q }}', headers: { k: '{{ input.key }}' } };
    expect(errorsOf(flow([t('a')], { tools: { find: { description: 'd', parameters: {}, http: ok } } }))).toEqual([]);
    const bad = { url: 'https://x/{{ steps.a.output }}' };
    const doc = flow([t('a')], { tools: { find: { description: 'd', parameters: {}, http: bad } } });
    expect(errorsOf(doc)).toEqual([issue(null, 'tools.find.http', "'steps' cannot be read here")]);
  });

  it("rejects 'args' outside a tool definition", () => {
    expect(errorsOf(flow([t('a', '=args.x')]))).toEqual([
      issue('a', 'steps[0].value', "'args' can only be read in a tool definition"),
    ]);
  });
});

describe('validateFlow: spawn and flow tools', () => {
  const spawn = (target: string) => ({ id: 'child', type: 'spawn', flow: target });
  const other = (steps: unknown[]) => ({ irVersion: 1, id: 'other', name: 'Other', steps });

  it('rejects a flow that spawns itself', () => {
    expect(errorsOf(flow([spawn('main@2')]))).toEqual([issue('child', 'steps[0].flow', "flow 'main' spawns itself")]);
  });

  it('accepts any flow id when no flows are given, and known ones when they are', () => {
    expect(errorsOf(flow([spawn('other')]))).toEqual([]);
    expect(errorsOf(flow([spawn('other@3')]), { flows: new Map([['other', other([t('x')])]]) })).toEqual([]);
  });

  it('rejects an unknown flow when flows are given', () => {
    expect(errorsOf(flow([spawn('othr')]), { flows: new Map([['other', other([t('x')])]]) })).toEqual([
      issue('child', 'steps[0].flow', "unknown flow 'othr'"),
    ]);
  });

  it('finds a spawn cycle through other flows, including flow tools and nested steps', () => {
    const flows = new Map<string, unknown>([
      ['other', other([{ id: 'b', type: 'branch', cases: [{ when: '=true', steps: [spawn('third')] }] }])],
      [
        'third',
        {
          irVersion: 1,
          id: 'third',
          name: 'T',
          steps: [t('x')],
          tools: { back: { description: 'd', parameters: {}, flow: 'main' } },
        },
      ],
    ]);
    expect(errorsOf(flow([spawn('other')]), { flows })).toEqual([
      issue('child', 'steps[0].flow', 'spawn cycle: main → other → third → main'),
    ]);
  });

  it('checks the flow of a flow tool too', () => {
    const doc = flow([t('a')], { tools: { sub: { description: 'd', parameters: {}, flow: 'missing' } } });
    expect(errorsOf(doc, { flows: new Map() })).toEqual([issue(null, 'tools.sub.flow', "unknown flow 'missing'")]);
    const bad = flow([t('a')], { tools: { sub: { description: 'd', parameters: {}, flow: 'Not A Ref' } } });
    expect(errorsOf(bad)).toEqual([
      issue(null, 'tools.sub.flow', `'Not A Ref' is not a flow reference ("flow-id" or "flow-id@3")`),
    ]);
  });
});

describe('validateFlow: llm steps', () => {
  it('requires an llm step to have a prompt or messages', () => {
    expect(errorsOf(flow([{ id: 'ask', type: 'llm', model: 'mock:echo' }]))).toEqual([
      issue('ask', 'steps[0].prompt', 'an llm step needs a prompt or messages'),
    ]);
  });
});

describe('validateFlow: reports every problem at once', () => {
  it('collects structure and data-flow problems together, in document order', () => {
    const doc = flow([
      t('a', '=steps.c.output'),
      { id: 'ask', type: 'llm', model: 'mock:echo' },
      t('a'),
      { id: 'x', type: 'tool', tool: 'ghost' },
    ]);
    expect(errorsOf(doc).map((e) => e.path)).toEqual([
      'steps[1].prompt',
      'steps[2].id',
      'steps[3].tool',
      'steps[0].value',
    ]);
  });
});

describe('validateFlow: names JavaScript reserves, and keys that are prototypes', () => {
  it.each(['__proto__', 'constructor', 'prototype', '__defineGetter__'])('refuses the step id %s', (id) => {
    expect(errorsOf(flow([t(id)]))).toContainEqual(
      issue(
        id,
        'steps[0].id',
        'is reserved by JavaScript (it names an object prototype member), so it cannot be a step id',
      ),
    );
  });

  it.each(['toString', 'hasOwnProperty', 'valueOf'])('accepts the step id %s (it is stored and read safely)', (id) => {
    expect(validateFlow(flow([t(id)])).ok).toBe(true);
  });

  it.each<[string, string, string]>([
    [
      'a transform value',
      '{"id":"a","type":"transform","value":{"__proto__":{"admin":true}}}',
      'steps[0].value.__proto__',
    ],
    [
      'a nested value',
      '{"id":"a","type":"transform","value":{"x":[{"__proto__":{}}]}}',
      'steps[0].value.x[0].__proto__',
    ],
    [
      'http headers',
      '{"id":"a","type":"http","url":"https://x.test","headers":{"__proto__":"v"}}',
      'steps[0].headers.__proto__',
    ],
  ])('refuses a __proto__ key in %s, naming where (instead of dropping it)', (_name, stepJson, path) => {
    // JSON.parse keeps `__proto__` as a data key, as a request body or a file does.
    const doc = JSON.parse(`{"irVersion":1,"id":"f","name":"F","steps":[${stepJson}]}`);
    const errors = errorsOf(doc);
    expect(errors).toEqual([{ stepId: 'a', path, message: expect.stringMatching(/'__proto__' cannot be a key/) }]);
  });

  it('refuses a __proto__ key in the ui and in tools', () => {
    const doc = JSON.parse(
      '{"irVersion":1,"id":"f","name":"F","steps":[{"id":"a","type":"transform","value":1}],"ui":{"__proto__":{}}}',
    );
    expect(errorsOf(doc)).toEqual([
      { stepId: null, path: 'ui.__proto__', message: expect.stringMatching(/__proto__/) },
    ]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('names where a value nests too deeply instead of overflowing the stack', () => {
    let value: unknown = 1;
    for (let i = 0; i < 3000; i++) value = { a: value };
    const errors = errorsOf(flow([{ id: 'deep', type: 'transform', value }]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ stepId: 'deep', message: expect.stringMatching(/nested more than 1000 levels/) });
    expect(errors[0]!.path).toMatch(/^steps\[0\]\.value\.a\.a.*more levels\)…\.a\.a\.a\.a$/);
  });
});
