/**
 * The step union and the handler table. `handlers` is a mapped type over every `type`, so a
 * new step type does not compile until it has a handler.
 */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { type ApprovalStep, approvalHandler, approvalStepSchema } from './approval.ts';
import { type BranchStep, branchHandler, branchStepSchema } from './branch.ts';
import { type CodeStep, codeHandler, codeStepSchema } from './code.ts';
import { type FailStep, failHandler, failStepSchema } from './fail.ts';
import { type HttpStep, httpHandler, httpStepSchema } from './http.ts';
import { type LlmStep, llmHandler, llmStepSchema } from './llm.ts';
import { type LoopStep, loopHandler, loopStepSchema } from './loop.ts';
import { type MapStep, mapHandler, mapStepSchema } from './map.ts';
import { type ParallelStep, parallelHandler, parallelStepSchema } from './parallel.ts';
import { type SleepStep, sleepHandler, sleepStepSchema } from './sleep.ts';
import { type SpawnStep, spawnHandler, spawnStepSchema } from './spawn.ts';
import { type ToolStep, toolHandler, toolStepSchema } from './tool.ts';
import { type TransformStep, transformHandler, transformStepSchema } from './transform.ts';

export const stepSchema = z.discriminatedUnion('type', [
  llmStepSchema,
  toolStepSchema,
  codeStepSchema,
  httpStepSchema,
  transformStepSchema,
  branchStepSchema,
  parallelStepSchema,
  mapStepSchema,
  loopStepSchema,
  approvalStepSchema,
  spawnStepSchema,
  sleepStepSchema,
  failStepSchema,
]);

export type Step =
  | LlmStep
  | ToolStep
  | CodeStep
  | HttpStep
  | TransformStep
  | BranchStep
  | ParallelStep
  | MapStep
  | LoopStep
  | ApprovalStep
  | SpawnStep
  | SleepStep
  | FailStep;

export type StepType = Step['type'];

export const STEP_TYPES = [
  'llm',
  'tool',
  'code',
  'http',
  'transform',
  'branch',
  'parallel',
  'map',
  'loop',
  'approval',
  'spawn',
  'sleep',
  'fail',
] as const satisfies readonly StepType[];

type HandlerTable = { [T in StepType]: StepHandler<Extract<Step, { type: T }>, unknown> };

export const handlers: HandlerTable = {
  llm: llmHandler,
  tool: toolHandler,
  code: codeHandler,
  http: httpHandler,
  transform: transformHandler,
  branch: branchHandler,
  parallel: parallelHandler,
  map: mapHandler,
  loop: loopHandler,
  approval: approvalHandler,
  spawn: spawnHandler,
  sleep: sleepHandler,
  fail: failHandler,
};

/** The nested step lists of a container step, each with its JSON path relative to the step. */
export function childLists(step: Step): { path: (string | number)[]; steps: readonly Step[] }[] {
  switch (step.type) {
    case 'branch':
      return [
        ...step.cases.map((branchCase, index) => ({ path: ['cases', index, 'steps'], steps: branchCase.steps })),
        ...(step.else ? [{ path: ['else'], steps: step.else }] : []),
      ];
    case 'parallel':
      return Object.entries(step.branches).map(([name, steps]) => ({ path: ['branches', name], steps }));
    case 'map':
    case 'loop':
      return [{ path: ['steps'], steps: step.steps }];
    case 'llm':
    case 'tool':
    case 'code':
    case 'http':
    case 'transform':
    case 'approval':
    case 'spawn':
    case 'sleep':
    case 'fail':
      return [];
  }
}
