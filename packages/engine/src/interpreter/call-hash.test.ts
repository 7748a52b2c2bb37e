/**
 * Journals hold these hashes, so their text must never change: the canonical text built by
 * appending and the base-36 digits written in two halves are checked against the plain
 * built-ins they replace.
 */
import { describe, expect, it } from 'vitest';
import { base36, canonicalJson, hash53, hashCall, hashValue, sameCall } from './call-hash.ts';

/** The hash as it was first written: the same 53 bits, in base 36 by Number.prototype.toString(36). */
function referenceHash(value: unknown): string {
  return hash53(referenceJson(value)).toString(36);
}

/** The canonical text as it was first written: Array.prototype.sort, map and join. */
function referenceJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(referenceJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${referenceJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** A seeded generator, so a failure names a value that can be found again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Keys that sort differently by code unit than by locale, escape in JSON, or are lone surrogates.
const KEY_PARTS = ['a', 'b', 'B', 'Z', '_', '0', '10', '2', 'é', '\u{1F600}', '"', '\\', '\n', '\ud800', 'aa', ''];

function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const kind = Math.floor(next() * (depth > 3 ? 4 : 7));
  if (kind === 0) return null;
  if (kind === 1) return Math.floor(next() * 1e6) / (1 + Math.floor(next() * 3));
  if (kind === 2) return pick(KEY_PARTS) + pick(KEY_PARTS);
  if (kind === 3) return next() < 0.5;
  if (kind === 4) return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
  const record: Record<string, unknown> = {};
  // Up to 15 keys at the top, fewer below: at 15 per level a value could hold tens of thousands
  // of nodes, and 20,000 of them took ~5 s, Vitest's limit for a test.
  for (let i = Math.floor(next() * (depth === 0 ? 16 : 6)); i > 0; i--)
    record[pick(KEY_PARTS) + pick(KEY_PARTS)] = randomValue(next, depth + 1);
  if (next() < 0.2) record.skipped = undefined;
  return record;
}

describe('call hashes', () => {
  it('match the reference text and hash for 20,000 random values', () => {
    const next = random(17);
    for (let i = 0; i < 20_000; i++) {
      const value = randomValue(next);
      expect(canonicalJson(value), JSON.stringify(value)).toBe(referenceJson(value));
      expect(hashValue(value), JSON.stringify(value)).toBe(referenceHash(value));
    }
  });

  it.each([0, 1, 35, 36, 36 ** 6 - 1, 36 ** 6, 36 ** 6 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 52 + 12_345, 2 ** 53 - 1])(
    'writes %d in base 36 as toString(36) does',
    (value) => {
      expect(base36(value)).toBe(value.toString(36));
    },
  );

  it('writes random integers below 2^53 in base 36 as toString(36) does', () => {
    const next = random(5);
    for (let i = 0; i < 20_000; i++) {
      const value = Math.floor(next() * 2 ** 21) * 2 ** 32 + Math.floor(next() * 2 ** 32);
      expect(base36(value)).toBe(value.toString(36));
    }
  });
});

describe('sameCall', () => {
  const code = hashCall({ kind: 'code', input: { source: 'return 1', args: {}, input: null, steps: {} } });
  it.each([
    ['the same hash', code, code, true],
    ['another code input', 'code@2:abc', code, false],
    ['a code call journaled before code@2 (every earlier output)', 'code:abc', code, true],
    ['a legacy code hash against another kind', 'code:abc', 'http:abc', false],
    ['another kind with a different hash', 'http:abc', 'http:abd', false],
  ])('%s', (_name, recorded, now, same) => {
    expect(sameCall(recorded, now)).toBe(same);
  });

  it('marks code calls code@2', () => {
    expect(code).toMatch(/^code@2:[0-9a-z]+$/);
  });
});
