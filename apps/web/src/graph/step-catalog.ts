/**
 * Every step type the palette offers, read from the step manifests (`@weft/engine`): label,
 * description, a valid starting config, and how the canvas draws it. The manifest names an
 * icon; this file is where the web decides what that name looks like.
 */
import { type Json, manifestOf, STEP_TYPES, type StepIcon, type StepType } from '@weft/engine';

export interface StepInfo {
  type: StepType;
  icon: string;
  label: string;
  description: string;
  /** Config of a freshly added step (every field but id, type and nested step lists). */
  defaults: Readonly<Record<string, Json>>;
  /** Drawn as a container holding its body. */
  container?: boolean;
}

/** What each manifest icon name is drawn as. Exhaustive: a new icon name does not compile without one. */
const ICON_GLYPHS: Record<StepIcon, string> = {
  sparkles: '✦',
  wrench: '⚒',
  braces: '{}',
  exchange: '⇄',
  function: 'ƒ',
  diamond: '◇',
  parallel: '∥',
  ellipsis: '⋯',
  repeat: '↻',
  check: '✓',
  external: '↗',
  moon: '☾',
  cross: '✕',
};

export const STEP_CATALOG: readonly StepInfo[] = STEP_TYPES.map((type) => {
  const { label, icon, description, defaults, shape } = manifestOf(type).editor;
  return {
    type,
    icon: ICON_GLYPHS[icon],
    label,
    description,
    defaults,
    ...(shape === 'container' ? { container: true } : {}),
  };
});

const BY_TYPE = new Map(STEP_CATALOG.map((info) => [info.type, info]));

export function stepInfo(type: StepType | undefined): StepInfo | undefined {
  return type ? BY_TYPE.get(type) : undefined;
}

export function isContainerType(type: StepType | undefined): boolean {
  return stepInfo(type)?.container === true;
}
