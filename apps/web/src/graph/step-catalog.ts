/** Every step type the palette offers: an icon, a one-line description and a valid starting config. */
import type { Json, StepType } from '@weft/engine';

export interface StepInfo {
  type: StepType;
  icon: string;
  label: string;
  description: string;
  /** Config of a freshly added step (every field but id, type and nested step lists). */
  defaults: Record<string, Json>;
  /** Drawn as a container holding its body. */
  container?: boolean;
}

export const STEP_CATALOG: readonly StepInfo[] = [
  {
    type: 'llm',
    icon: '✦',
    label: 'LLM',
    description: 'Ask a model; with tools and maxSteps it is an agent loop.',
    defaults: { model: 'mock:echo', prompt: '{{ input.text }}' },
  },
  {
    type: 'tool',
    icon: '⚒',
    label: 'Tool',
    description: 'Call a registered tool with arguments.',
    defaults: { tool: 'echo', args: {} },
  },
  {
    type: 'code',
    icon: '{}',
    label: 'Code',
    description: 'Run sandboxed JavaScript on args, input and steps.',
    defaults: { source: 'return args;', args: {} },
  },
  {
    type: 'http',
    icon: '⇄',
    label: 'HTTP',
    description: 'Make an HTTP request and keep status, headers and body.',
    defaults: { method: 'GET', url: 'https://example.com' },
  },
  {
    type: 'transform',
    icon: 'ƒ',
    label: 'Transform',
    description: 'Compute a value from expressions.',
    defaults: { value: '=input' },
  },
  {
    type: 'branch',
    icon: '◇',
    label: 'Branch',
    description: 'Take the first case whose condition holds, else the else arm.',
    defaults: { cases: [{ when: '=true' }] },
  },
  {
    type: 'parallel',
    icon: '∥',
    label: 'Parallel',
    description: 'Run named branches at once, then re-join.',
    defaults: {},
  },
  {
    type: 'map',
    icon: '⋯',
    label: 'Map',
    description: 'Run the body once per item of a list.',
    defaults: { items: '=[]' },
    container: true,
  },
  {
    type: 'loop',
    icon: '↻',
    label: 'Loop',
    description: 'Repeat the body while a condition holds.',
    defaults: { while: '=false', maxIterations: 3 },
    container: true,
  },
  {
    type: 'approval',
    icon: '✓',
    label: 'Approval',
    description: 'Pause until a person approves or rejects.',
    defaults: { prompt: 'Continue?' },
  },
  {
    type: 'spawn',
    icon: '↗',
    label: 'Spawn',
    description: 'Run another flow as a child and use its output.',
    defaults: { flow: 'other-flow' },
  },
  {
    type: 'sleep',
    icon: '☾',
    label: 'Sleep',
    description: 'Wait durably for a duration.',
    defaults: { duration: '1s' },
  },
  {
    type: 'fail',
    icon: '✕',
    label: 'Fail',
    description: 'Stop the run with an error message.',
    defaults: { message: 'Stopped' },
  },
];

const BY_TYPE = new Map(STEP_CATALOG.map((info) => [info.type, info]));

export function stepInfo(type: StepType | undefined): StepInfo | undefined {
  return type ? BY_TYPE.get(type) : undefined;
}

export function isContainerType(type: StepType | undefined): boolean {
  return stepInfo(type)?.container === true;
}
