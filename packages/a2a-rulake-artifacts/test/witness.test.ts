import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeWitness, createWitnessHasher, isWitness, verifyWitness } from '../src/index.js';
import { seededRandom } from './helpers.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('witness = SHAKE-256, 32-byte output, lowercase hex (FIPS 202)', () => {
  it('matches the FIPS 202 SHAKE256 vectors for "" and "abc"', () => {
    expect(computeWitness(new Uint8Array())).toBe('46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f');
    expect(computeWitness(utf8('abc'))).toBe('483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739');
  });

  it('agrees with node:crypto shake256 on random inputs', () => {
    const random = seededRandom(7);
    for (let n = 0; n < 20; n++) {
      const bytes = new Uint8Array(Math.floor(random() * 5000));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
      const expected = createHash('shake256', { outputLength: 32 }).update(bytes).digest('hex');
      expect(computeWitness(bytes)).toBe(expected);
    }
  });

  it('streaming hasher equals the one-shot witness for any chunking', () => {
    const bytes = utf8('x'.repeat(10_000));
    const hasher = createWitnessHasher();
    for (let i = 0; i < bytes.length; i += 333) hasher.update(bytes.subarray(i, i + 333));
    expect(hasher.digest()).toBe(computeWitness(bytes));
  });

  it('verifyWitness detects tampering and malformed witnesses without throwing', () => {
    const bytes = utf8('payload');
    const witness = computeWitness(bytes);
    expect(isWitness(witness)).toBe(true);
    expect(verifyWitness(bytes, witness)).toBe(true);
    const tampered = bytes.slice();
    tampered[0] = tampered[0]! ^ 1;
    expect(verifyWitness(tampered, witness)).toBe(false);
    expect(verifyWitness(bytes, witness.toUpperCase())).toBe(false);
    expect(verifyWitness(bytes, 'nope')).toBe(false);
    expect(verifyWitness(bytes, 5 as never)).toBe(false);
  });

  it('rejects non-bytes from the caller with TypeError', () => {
    expect(() => computeWitness('abc' as never)).toThrow(TypeError);
    expect(() => createWitnessHasher().update([1] as never)).toThrow(TypeError);
  });
});
