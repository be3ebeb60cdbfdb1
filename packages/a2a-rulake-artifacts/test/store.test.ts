import { describe, expect, it } from 'vitest';
import { WitnessAccessDeniedError, WitnessNotFoundError, computeWitness, createInMemoryWitnessStore } from '../src/index.js';
import { describeWitnessStoreContract } from '../src/testing/index.js';
import { chunked } from './helpers.js';

const bytes = new TextEncoder().encode('the shared memory tier'.repeat(10_000));

describeWitnessStoreContract('in-memory store', { create: () => createInMemoryWitnessStore() }, { describe, it });

describe('in-memory WitnessStore', () => {
  it('names each payload by a memory:// dataRef', async () => {
    const store = createInMemoryWitnessStore();
    const stored = await store.put(chunked(bytes, 1000));
    expect(stored).toEqual({
      witness: computeWitness(bytes),
      dataRef: `memory://witness/${computeWitness(bytes)}`,
      size: bytes.byteLength,
    });
  });
});

describe('local errors', () => {
  it('instanceof and isInstance work on a structurally identical copy (duplicate bundles)', async () => {
    const store = createInMemoryWitnessStore();
    const error = await store.get({ witness: 'f'.repeat(64), capabilities: ['read'] }).catch((e: unknown) => e);
    const copy = Object.assign(Object.create(Error.prototype), error);
    Object.defineProperty(copy, Symbol.for('@a2aplane/a2a-rulake-artifacts/error'), { value: true });
    expect(copy).toBeInstanceOf(WitnessNotFoundError);
    expect(WitnessNotFoundError.isInstance(copy)).toBe(true);
    expect(copy instanceof WitnessAccessDeniedError).toBe(false);
    expect(new Error('x') instanceof WitnessNotFoundError).toBe(false);
    expect((error as WitnessNotFoundError).name).toBe('WitnessNotFoundError');
  });
});
