/** Argument checks for helpers and methods: they throw ExprFault, never coerce. */
import { ExprFault } from './limits.ts';
import { describe, isPlainObject, type PlainObject } from './values.ts';

export function ordinal(position: number): string {
  return ['first', 'second', 'third', 'fourth'][position] ?? `#${position + 1}`;
}

function wrong(expected: string, value: unknown, position: number): never {
  throw new ExprFault(`${ordinal(position)} argument must be ${expected}, got ${describe(value)}`);
}

export function str(value: unknown, position: number): string {
  return typeof value === 'string' ? value : wrong('a string', value, position);
}

export function optStr(value: unknown, position: number): string | undefined {
  return value === undefined ? undefined : str(value, position);
}

export function num(value: unknown, position: number): number {
  return typeof value === 'number' ? value : wrong('a number', value, position);
}

export function optNum(value: unknown, position: number): number | undefined {
  return value === undefined ? undefined : num(value, position);
}

/** An integer in [min, max] (or undefined when optional and absent). */
export function int(value: unknown, position: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ExprFault(`${ordinal(position)} argument must be an integer from ${min} to ${max}, got ${show(value)}`);
  }
  return value;
}

export function arr(value: unknown, position: number): unknown[] {
  return Array.isArray(value) ? value : wrong('an array', value, position);
}

export function obj(value: unknown, position: number): PlainObject {
  return isPlainObject(value) ? value : wrong('an object', value, position);
}

/** A short rendering of a value for messages. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return describe(value);
}
