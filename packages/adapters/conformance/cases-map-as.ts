/**
 * Conformance cases for `map.as` (IR v1: `as` names the item variable, default `item`): nested
 * maps that name their items and read both, a map inside them that keeps the default name, and
 * a map that writes the default name out. Every backend runs the same interpreter; these pin
 * that the names resolve identically on each, including inside a code step's args.
 */
import { around, type ConformanceCase, ran, run } from './case-builders.ts';
import { concurrent } from './events.ts';

const order = (index: number, lines: number, tags: number) => {
  const at = `orders[${index}]`;
  return [
    ...around(`${at}/lines`, [
      concurrent(...Array.from({ length: lines }, (_, line) => ran(`${at}/lines[${line}]/pick`))),
    ]),
    ...ran(`${at}/units`),
    ...around(`${at}/tags`, [concurrent(...Array.from({ length: tags }, (_, tag) => ran(`${at}/tags[${tag}]/tag`)))]),
    ...ran(`${at}/summary`),
  ];
};

export const MAP_AS_CASES: readonly ConformanceCase[] = [
  run(
    'order-picking',
    "nested maps name their items (as: order, line), an inner map keeps 'item', labels write 'item' out",
    {},
    {
      status: 'completed',
      output: {
        orders: [
          {
            order: 'A-100',
            picks: [
              { order: 'A-100', sku: 'mug', qty: 2, slot: 'north-1' },
              { order: 'A-100', sku: 'tea', qty: 3, slot: 'north-2' },
            ],
            units: 5,
            tags: ['A-100#gift', 'A-100#fragile'],
          },
          {
            order: 'A-101',
            picks: [{ order: 'A-101', sku: 'kettle', qty: 1, slot: 'south-1' }],
            units: 1,
            tags: ['A-101#express'],
          },
        ],
        labels: ['Order A-100 (north): 2 lines', 'Order A-101 (south): 1 lines'],
      },
      events: [
        'run.started',
        ...around('orders', [concurrent(order(0, 2, 2), order(1, 1, 1))]),
        ...around('labels', [concurrent(ran('labels[0]/label'), ran('labels[1]/label'))]),
        'run.completed',
      ],
    },
  ),
  run(
    'order-picking',
    'an order with no lines and no tags maps to empty lists',
    { input: { orders: [{ id: 'B-7', warehouse: 'east', lines: [], tags: [] }] } },
    {
      status: 'completed',
      output: {
        orders: [{ order: 'B-7', picks: [], units: 0, tags: [] }],
        labels: ['Order B-7 (east): 0 lines'],
      },
      events: [
        'run.started',
        ...around('orders', [
          concurrent([
            ...around('orders[0]/lines', []),
            ...ran('orders[0]/units'),
            ...around('orders[0]/tags', []),
            ...ran('orders[0]/summary'),
          ]),
        ]),
        ...around('labels', [concurrent(ran('labels[0]/label'))]),
        'run.completed',
      ],
    },
  ),
];
