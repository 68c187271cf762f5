import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CuckooFilterError } from '../../js/src/index';

export const repoRoot = join(__dirname, '..', '..');

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function readVectors(): {
  locations: Array<Record<string, string | number>>;
  integer_locations: Array<Record<string, string | number>>;
  filters: Array<Record<string, unknown>>;
} {
  return JSON.parse(readFileSync(join(repoRoot, 'tests', 'vectors', 'golden.json'), 'utf8'));
}

/** A small deterministic PRNG (mulberry32), so that failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a call threw, as "CODE: message" for a CuckooFilterError and "Name: message" otherwise. */
export function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof CuckooFilterError ? `${e.code}: ${e.message}` : `${(e as Error).name}: ${(e as Error).message}`;
  }
  return 'no error';
}
