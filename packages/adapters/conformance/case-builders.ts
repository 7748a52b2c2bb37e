/** The shape of a conformance case and the small builders the case table is written with. */
import type { Fixtures, Json } from '@weft/engine';
import type { ApprovalDecision } from './adapter.ts';
import type { EventPattern } from './events.ts';
import { example } from './examples.ts';

export interface ConformanceCase {
  name: string;
  /** Id of the example flow. */
  flow: string;
  /** May name the demo API at DEMO_API_DEFAULT_BASE; the suite points it at its own server. */
  input: Json;
  fixtures: Fixtures;
  /** Decisions for the run's approval steps, by full step path. */
  approvals: Record<string, ApprovalDecision>;
  /** A tighter limit than the suite's, for cases that must end on their own within it. */
  timeoutMs?: number;
  expect: {
    status: 'completed' | 'failed' | 'cancelled';
    /** Compared exactly; null when the run does not complete. */
    output: Json;
    /** For a failed run: the failing step's path and a part of the message. */
    error?: { stepId: string; message: string };
    events: EventPattern[];
  };
}

type CaseOptions = Partial<Pick<ConformanceCase, 'input' | 'fixtures' | 'approvals' | 'timeoutMs'>>;

/** A case over an example, with its input and fixtures files unless overridden. */
export function run(
  flow: string,
  name: string,
  options: CaseOptions,
  expect: ConformanceCase['expect'],
): ConformanceCase {
  const source = example(flow);
  return {
    name: `${flow}: ${name}`,
    flow,
    input: options.input ?? source.input,
    fixtures: options.fixtures ?? source.fixtures,
    approvals: options.approvals ?? {},
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    expect,
  };
}

// Event shorthands. Every step emits `step.started` then `step.completed` or `step.failed`.
export const ran = (id: string): string[] => [`step.started:${id}`, `step.completed:${id}`];
export const failed = (id: string): string[] => [`step.started:${id}`, `step.failed:${id}`];
export const around = (id: string, inner: EventPattern[]): EventPattern[] => [
  `step.started:${id}`,
  ...inner,
  `step.completed:${id}`,
];
export const failedAround = (id: string, inner: EventPattern[]): EventPattern[] => [
  `step.started:${id}`,
  ...inner,
  `step.failed:${id}`,
];
/** An llm step of one model turn. */
export const model = (id: string): EventPattern[] => around(id, ran(`${id}/llm#1`));
/** A step whose work is a child run (spawn, or a flow tool). */
export const spawned = (id: string): string[] => [`step.started:${id}`, `child.started:${id}`, `step.completed:${id}`];

export const invoice = example('invoice-approval');
export const invoiceInput = invoice.input as { invoice: Record<string, Json> } & Record<string, Json>;

export const triageShipping: Fixtures = {
  classify: [
    { object: { category: 'shipping', priority: 'normal', summary: 'Customer asks when order #5120 will ship.' } },
  ],
  draft: [
    {
      text: 'Hi Leo, order #5120 left our warehouse this morning and should arrive on Thursday. You will get a tracking link by email within the hour. — The Support Team',
    },
  ],
  shorten: [{ text: 'Hi Leo, order #5120 shipped today and should arrive Thursday. — The Support Team' }],
};

export const failingTool: Fixtures = {
  research: [
    { toolCalls: [{ tool: 'percent_change', args: { from: 0, to: 12 } }] },
    { toolCalls: [{ tool: 'percent_change', args: { from: 8, to: 12 } }] },
    { text: 'It grew by 50%. (My first calculation failed because the base was 0.)' },
  ],
  answer: [{ object: { answer: 'It grew by 50%.', growthPercent: 50, sources: [] } }],
};
