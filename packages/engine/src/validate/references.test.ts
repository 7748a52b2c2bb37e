/** The data-flow checks of references.ts, through validateFlow: expressions, step reads, item/index/iteration. */
import { describe, expect, it } from 'vitest';
import { errorsOf, flow, issue, t } from '../test-support/validation.ts';
import type { ValidationIssue } from './issues.ts';

describe('validateFlow: expressions', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['an unfinished expression', '=1 +', 'steps[0].value', /^unexpected end of expression \(at character 5\)$/],
    [
      'an unknown name, at its position',
      '=input.a + nope',
      'steps[0].value',
      /^unknown name 'nope'.* \(at character 12\)$/,
    ],
    [
      'a bad template part, at its position in the template',
      { a: ['ok', 'Hi {{ input. }}'] },
      'steps[0].value.a[1]',
      /expected a property name \(at character 13\)$/,
    ],
    ['an assignment', '=input.x = 1', 'steps[0].value', /assignment is not allowed.*\(at character 10\)$/],
  ])('rejects %s with a position-bearing message', (_name, value, path, message) => {
    expect(errorsOf(flow([t('a', value)]))).toEqual([issue('a', path, message)]);
  });

  it('checks expressions in every field that holds them', () => {
    const bad = '=)';
    const doc = flow(
      [
        { id: 'l', type: 'llm', model: 'mock:echo', system: bad, prompt: bad, messages: bad },
        { id: 'h', type: 'http', url: bad, headers: { a: bad }, body: { b: bad } },
        { id: 'c', type: 'code', source: 'x', args: { a: bad } },
        { id: 'tl', type: 'tool', tool: 'x', args: { a: bad } },
        { id: 'm', type: 'map', items: bad, steps: [] },
        { id: 'lp', type: 'loop', while: bad, steps: [] },
        { id: 'b', type: 'branch', cases: [{ when: bad, steps: [] }] },
        { id: 'ap', type: 'approval', prompt: bad },
        { id: 'sp', type: 'spawn', flow: 'other', input: { a: bad } },
        { id: 'f', type: 'fail', message: bad },
      ],
      { output: { x: bad } },
    );
    const paths = errorsOf(doc, { hostTools: ['x'] }).map((e) => `${e.stepId}:${e.path}`);
    expect(paths).toEqual([
      'l:steps[0].system',
      'l:steps[0].prompt',
      'l:steps[0].messages',
      'h:steps[1].url',
      'h:steps[1].headers.a',
      'h:steps[1].body.b',
      'c:steps[2].args.a',
      'tl:steps[3].args.a',
      'm:steps[4].items',
      'lp:steps[5].while',
      'b:steps[6].cases[0].when',
      'ap:steps[7].prompt',
      'sp:steps[8].input.a',
      'f:steps[9].message',
      'null:output.x',
    ]);
  });
});

describe('validateFlow: reads of steps that may not have run', () => {
  const notYet = (id: string) => `reads steps.${id}, which has not run yet on every path to here`;

  it.each<[string, unknown[], ValidationIssue[]]>([
    ['a forward read', [t('a', '=steps.b.output'), t('b')], [issue('a', 'steps[0].value', notYet('b'))]],
    ['a self-read', [t('a', '=steps.a.output')], [issue('a', 'steps[0].value', notYet('a'))]],
    [
      'a step that does not exist',
      [t('a', '=steps.zzz.output')],
      [issue('a', 'steps[0].value', "reads steps.zzz, but there is no step 'zzz'")],
    ],
    [
      'a step from one branch arm, after the branch',
      [
        { id: 'b', type: 'branch', cases: [{ when: '=input', steps: [t('x')] }], else: [t('y')] },
        t('after', '=steps.x.output'),
      ],
      [issue('after', 'steps[1].value', notYet('x'))],
    ],
    [
      'a step from the only case of a branch without else',
      [{ id: 'b', type: 'branch', cases: [{ when: '=input', steps: [t('x')] }] }, t('after', '=steps.x.output')],
      [issue('after', 'steps[1].value', notYet('x'))],
    ],
    [
      'a parallel sibling, from inside another branch',
      [{ id: 'p', type: 'parallel', branches: { a: [t('x')], b: [t('y', '=steps.x.output')] } }],
      [issue('y', 'steps[0].branches.b[0].value', notYet('x'))],
    ],
    [
      'a map body step, from outside the map',
      [{ id: 'm', type: 'map', items: '=[1]', steps: [t('x', '=item')] }, t('after', '=steps.x.output')],
      [issue('after', 'steps[1].value', notYet('x'))],
    ],
    [
      'a loop body step, from outside the loop',
      [{ id: 'l', type: 'loop', while: '=iteration < 2', steps: [t('x')] }, t('after', '=steps.x.output')],
      [issue('after', 'steps[1].value', notYet('x'))],
    ],
    [
      'a later step of the same loop body',
      [{ id: 'l', type: 'loop', while: '=false', steps: [t('x', '=steps.y.output'), t('y')] }],
      [issue('x', 'steps[0].steps[0].value', notYet('y'))],
    ],
    [
      "the branch's arm steps from its own when",
      [{ id: 'b', type: 'branch', cases: [{ when: '=steps.x.output', steps: [t('x')] }] }],
      [issue('b', 'steps[0].cases[0].when', notYet('x'))],
    ],
  ])('rejects %s', (_name, steps, expected) => {
    expect(errorsOf(flow(steps))).toEqual(expected);
  });

  it.each<[string, unknown[]]>([
    ['an earlier step', [t('a'), t('b', '=steps.a.output')]],
    [
      'a step before the branch, from inside every arm and after it',
      [
        t('pre'),
        {
          id: 'b',
          type: 'branch',
          cases: [{ when: '=steps.pre.output', steps: [t('x', '=steps.pre.output')] }],
          else: [t('y', '=steps.pre.output')],
        },
        t('after', '=steps.pre.output'),
      ],
    ],
    [
      'a branch output after the branch',
      [{ id: 'b', type: 'branch', cases: [{ when: '=true', steps: [] }] }, t('a', '=steps.b.output')],
    ],
    [
      'every parallel branch, after the parallel step',
      [
        { id: 'p', type: 'parallel', branches: { a: [t('x')], b: [t('y')] } },
        t('after', '=[steps.x.output, steps.y.output]'),
      ],
    ],
    [
      'earlier steps of the same map iteration, and steps before the map',
      [
        t('pre'),
        {
          id: 'm',
          type: 'map',
          items: '=[1]',
          steps: [t('x', '=item'), t('y', '=[steps.x.output, steps.pre.output, index]')],
        },
      ],
    ],
    [
      "the loop body's outputs from `while` (previous iteration)",
      [{ id: 'l', type: 'loop', while: '=(steps.x?.output ?? 0) < 3', steps: [t('x', '=iteration')] }],
    ],
  ])('accepts a read of %s', (_name, steps) => {
    expect(errorsOf(flow(steps))).toEqual([]);
  });

  it('checks the flow output against the steps that ran on every path', () => {
    const doc = flow([{ id: 'b', type: 'branch', cases: [{ when: '=input', steps: [t('x')] }] }], {
      output: { x: '=steps.x.output', b: '=steps.b.output' },
    });
    expect(errorsOf(doc)).toEqual([issue(null, 'output', notYet('x'))]);
  });
});

describe('validateFlow: item, index and iteration', () => {
  it.each<[string, unknown[], ValidationIssue[]]>([
    ['item outside a map', [t('a', '=item')], [issue('a', 'steps[0].value', "'item' can only be read inside a map")]],
    [
      'index outside a map',
      [t('a', '{{ index }}')],
      [issue('a', 'steps[0].value', "'index' can only be read inside a map")],
    ],
    [
      'item in a loop that is not in a map',
      [{ id: 'l', type: 'loop', while: '=false', steps: [t('a', '=item')] }],
      [issue('a', 'steps[0].steps[0].value', "'item' can only be read inside a map")],
    ],
    [
      'iteration outside a loop',
      [t('a', '=iteration')],
      [issue('a', 'steps[0].value', "'iteration' can only be read inside a loop")],
    ],
    [
      'iteration in a map',
      [{ id: 'm', type: 'map', items: '=[1]', steps: [t('a', '=iteration')] }],
      [issue('a', 'steps[0].steps[0].value', "'iteration' can only be read inside a loop")],
    ],
  ])('rejects %s', (_name, steps, expected) => {
    expect(errorsOf(flow(steps))).toEqual(expected);
  });

  it('accepts item and index in a map, iteration in a loop, and both when nested', () => {
    const doc = flow([
      {
        id: 'm',
        type: 'map',
        items: '=[1, 2]',
        steps: [
          t('a', '=[item, index]'),
          { id: 'l', type: 'loop', while: '=iteration < item', steps: [t('b', '=[item, index, iteration]')] },
        ],
      },
    ]);
    expect(errorsOf(doc)).toEqual([]);
  });

  it('rejects item read by the flow output', () => {
    expect(errorsOf(flow([t('a')], { output: '=item' }))).toEqual([
      issue(null, 'output', "'item' can only be read inside a map"),
    ]);
  });
});
