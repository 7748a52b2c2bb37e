/**
 * The step union, built from the step manifests (one per `steps/<type>.ts`). `manifests` is a
 * mapped type over every `type`, so a new step type does not compile until it has a manifest;
 * everything else here (the schema union, the handler table, child lists) is derived from it.
 */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { type ApprovalStep, approvalStep, approvalStepSchema } from './approval.ts';
import { type BranchStep, branchStep, branchStepSchema } from './branch.ts';
import { type CodeStep, codeStep, codeStepSchema } from './code.ts';
import { type FailStep, failStep, failStepSchema } from './fail.ts';
import { type HttpStep, httpStep, httpStepSchema } from './http.ts';
import { type LlmStep, llmStep, llmStepSchema } from './llm.ts';
import { type LoopStep, loopStep, loopStepSchema } from './loop.ts';
import { BASE_FIELDS, type FieldSpec, STEP_LIST_KINDS, type StepManifest } from './manifest.ts';
import { type MapStep, mapStep, mapStepSchema } from './map.ts';
import { type ParallelStep, parallelStep, parallelStepSchema } from './parallel.ts';
import { type SleepStep, sleepStep, sleepStepSchema } from './sleep.ts';
import { type SpawnStep, spawnStep, spawnStepSchema } from './spawn.ts';
import { type ToolStep, toolStep, toolStepSchema } from './tool.ts';
import { type TransformStep, transformStep, transformStepSchema } from './transform.ts';

// The union names each type's schema directly rather than `<type>Step.schema`: its precise zod
// type feeds `Step`, which the manifests' own types refer to, and TypeScript cannot follow that
// cycle through a manifest's annotation. The manifest table below checks they are the same.
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

export type StepOf<T extends StepType> = Extract<Step, { type: T }>;

type ManifestTable = { readonly [T in StepType]: StepManifest<StepOf<T>> };

/** Every step type's manifest, in palette order. */
export const STEP_MANIFESTS: ManifestTable = {
  llm: llmStep,
  tool: toolStep,
  code: codeStep,
  http: httpStep,
  transform: transformStep,
  branch: branchStep,
  parallel: parallelStep,
  map: mapStep,
  loop: loopStep,
  approval: approvalStep,
  spawn: spawnStep,
  sleep: sleepStep,
  fail: failStep,
};

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

/** The manifest of a type (typed loosely: for code that reads any step by its field kinds). */
export function manifestOf(type: StepType): StepManifest<Step> {
  return STEP_MANIFESTS[type] as unknown as StepManifest<Step>;
}

/** True when `type` names a step type (an own key: `constructor` is none). */
export function isStepType(type: unknown): type is StepType {
  return typeof type === 'string' && Object.hasOwn(STEP_MANIFESTS, type);
}

type HandlerTable = { [T in StepType]: StepHandler<StepOf<T>, unknown> };

export const handlers = Object.fromEntries(
  STEP_TYPES.map((type) => [type, STEP_MANIFESTS[type].handler]),
) as HandlerTable;

/** A config field of a step type: its name, its kind, and whether it is one every step has. */
export interface StepField {
  name: string;
  spec: FieldSpec;
  common: boolean;
}

/**
 * Every config field of a type with its kind, common ones included, in form order: the name,
 * the type's own fields, then retry and (unless the type redeclares it) the call timeout.
 */
export function stepFieldSpecs(type: StepType): StepField[] {
  const own = manifestOf(type).fields as Readonly<Record<string, FieldSpec>>;
  const fields: StepField[] = [{ name: 'name', spec: BASE_FIELDS.name, common: true }];
  for (const [name, spec] of Object.entries(own)) fields.push({ name, spec, common: false });
  fields.push({ name: 'retry', spec: BASE_FIELDS.retry, common: true });
  if (!Object.hasOwn(own, 'timeout')) fields.push({ name: 'timeout', spec: BASE_FIELDS.timeout, common: true });
  return fields;
}

/** The spec of one config field of a type (own fields first, then the common ones). */
export function fieldSpec(type: StepType, field: string): FieldSpec | undefined {
  const own = manifestOf(type).fields as Readonly<Record<string, FieldSpec>>;
  if (Object.hasOwn(own, field)) return own[field];
  return Object.hasOwn(BASE_FIELDS, field) ? BASE_FIELDS[field as keyof typeof BASE_FIELDS] : undefined;
}

export interface ChildList {
  /** JSON path of the list relative to the step. */
  path: (string | number)[];
  steps: readonly Step[];
}

/** The nested step lists of a step, read from its manifest's step-list fields (absent ones skipped). */
export function childLists(step: Step): ChildList[] {
  const lists: ChildList[] = [];
  const record = step as unknown as Record<string, unknown>;
  for (const [field, spec] of Object.entries(manifestOf(step.type).fields as Record<string, FieldSpec>)) {
    if (!STEP_LIST_KINDS.has(spec.kind) || record[field] === undefined) continue;
    lists.push(...listsOfField(field, spec, record[field]));
  }
  return lists;
}

/** The step lists one field holds, by its kind. */
function listsOfField(field: string, spec: FieldSpec, value: unknown): ChildList[] {
  switch (spec.kind) {
    case 'steps':
      return [{ path: [field], steps: value as Step[] }];
    case 'named-steps':
      return Object.entries(value as Record<string, Step[]>).map(([name, steps]) => ({ path: [field, name], steps }));
    case 'cases':
      return (value as { steps: Step[] }[]).map((branchCase, index) => ({
        path: [field, index, 'steps'],
        steps: branchCase.steps,
      }));
    case 'expression':
    case 'condition':
    case 'template':
    case 'template-record':
    case 'args':
    case 'value':
    case 'duration':
    case 'model':
    case 'code':
    case 'json-schema':
    case 'literal':
      return [];
  }
}

const RAW_KIND_ORDER: readonly FieldSpec['kind'][] = ['steps', 'cases', 'named-steps'];

/**
 * The step lists a raw (not yet parsed) step object may hold, read loosely by field kind over
 * every manifest: the depth and duplicate-id checks walk documents the schema has not accepted.
 */
export function rawChildLists(step: Readonly<Record<string, unknown>>): { path: (string | number)[]; list: unknown }[] {
  const lists: { path: (string | number)[]; list: unknown }[] = [];
  for (const [field, kind] of RAW_LIST_FIELDS) {
    const value = step[field];
    if (kind === 'steps') lists.push({ path: [field], list: value });
    else if (kind === 'cases' && Array.isArray(value)) {
      value.forEach((branchCase, index) => {
        lists.push({ path: [field, index, 'steps'], list: (branchCase as { steps?: unknown } | null)?.steps });
      });
    } else if (kind === 'named-steps' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [name, list] of Object.entries(value)) lists.push({ path: [field, name], list });
    }
  }
  return lists;
}

/**
 * Every step-list field name of any type, with its kind (the same name never has two kinds);
 * plain lists first, so the walk meets them in the order it always has.
 */
const RAW_LIST_FIELDS: ReadonlyMap<string, FieldSpec['kind']> = new Map(
  STEP_TYPES.flatMap((type) =>
    Object.entries(manifestOf(type).fields as Record<string, FieldSpec>)
      .filter(([, spec]) => STEP_LIST_KINDS.has(spec.kind))
      .map(([field, spec]) => [field, spec.kind] as const),
  ).sort(([, a], [, b]) => RAW_KIND_ORDER.indexOf(a) - RAW_KIND_ORDER.indexOf(b)),
);
