import { describe, expect, it } from 'vitest';
import { WitnessAccessDeniedError, WitnessNotFoundError, computeWitness, createInMemoryWitnessStore } from '../src/index.js';
import { chunked, concatBytes, sameBytes } from './helpers.js';

const bytes = new TextEncoder().encode('the shared memory tier'.repeat(10_000));

describe('in-memory WitnessStore', () => {
  it('puts bytes or a chunk stream under their witness and reads them back', async () => {
    const store = createInMemoryWitnessStore();
    const a = await store.put(bytes);
    const b = await store.put(chunked(bytes, 1000));
    expect(a).toEqual(b);
    expect(a.witness).toBe(computeWitness(bytes));
    expect(a.size).toBe(bytes.byteLength);
    expect(a.dataRef).toBe(`memory://witness/${a.witness}`);
    expect(await store.has(a.witness)).toBe(true);
    expect(sameBytes(await store.get({ witness: a.witness, capabilities: ['read'] }), bytes)).toBe(true);
    expect(sameBytes(await concatBytes(store.stream({ witness: a.witness, capabilities: ['read', 'search'] })), bytes)).toBe(true);
  });

  it('ADR-159 r2 scoped grant: a grant without read is denied', async () => {
    const store = createInMemoryWitnessStore();
    const { witness } = await store.put(bytes);
    const denied = store.get({ witness, capabilities: ['write'] });
    await expect(denied).rejects.toBeInstanceOf(WitnessAccessDeniedError);
    await expect(denied).rejects.toMatchObject({ witness, required: 'read' });
    await expect(concatBytes(store.stream({ witness, capabilities: [] }))).rejects.toSatisfy(WitnessAccessDeniedError.isInstance);
  });

  it('reports an unknown or malformed witness as not found', async () => {
    const store = createInMemoryWitnessStore();
    await expect(store.get({ witness: 'f'.repeat(64), capabilities: ['read'] })).rejects.toBeInstanceOf(WitnessNotFoundError);
    await expect(store.get({ witness: '../etc/passwd', capabilities: ['read'] })).rejects.toBeInstanceOf(WitnessNotFoundError);
    expect(await store.has('f'.repeat(64))).toBe(false);
    expect(await store.has('nope')).toBe(false);
  });

  it('is not affected by the caller mutating the put or returned buffers', async () => {
    const store = createInMemoryWitnessStore();
    const copy = bytes.slice();
    const { witness } = await store.put(copy);
    copy[0] = 0;
    const got = await store.get({ witness, capabilities: ['read'] });
    got[1] = 0;
    expect(sameBytes(await store.get({ witness, capabilities: ['read'] }), bytes)).toBe(true);
  });

  it('rejects a wrong grant shape or payload type with TypeError', async () => {
    const store = createInMemoryWitnessStore();
    await expect(store.get(null as never)).rejects.toBeInstanceOf(TypeError);
    await expect(store.put('text' as never)).rejects.toBeInstanceOf(TypeError);
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
