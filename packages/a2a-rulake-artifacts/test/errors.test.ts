import { describe, expect, it } from 'vitest';
import {
  type ArtifactKind,
  assertGrant,
  checkArtifactVersion,
  computeWitness,
  createHandOffMessage,
  createInMemoryWitnessStore,
  createWitnessHasher,
  decodeVectors,
  encodeVectors,
  handOffVectors,
  memoryExtensionParams,
  negotiateArtifactKindVersion,
  resolveHandOff,
  toArtifact,
  validateStructured,
} from '../src/index.js';
import { createFileSystemWitnessStore, createNodeWitnessHasher } from '../src/node/index.js';
import { collect, generateVectors } from './helpers.js';

/** STYLE: programmer errors throw TypeError / RangeError worded "expected X, got Y". */
const EXPECTED_GOT = /^expected .+, got .+/;
const WITNESS = 'a'.repeat(64);
const witnessArtifact = toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'memory://x', capabilities: ['read'] });

async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('programmer errors: TypeError / RangeError "expected X, got Y"', () => {
  const store = createInMemoryWitnessStore();
  const cases: Array<[string, () => unknown, typeof TypeError | typeof RangeError]> = [
    ['toArtifact of null', () => toArtifact(null as never), TypeError],
    ['toArtifact with a non-string text', () => toArtifact({ kind: 'text', text: 1 } as never), TypeError],
    [
      'toArtifact with a bad witness',
      () => toArtifact({ kind: 'vector_ref', backend: 'b', collection: 'c', witness: 'x', dim: 1, count: 1 }),
      TypeError,
    ],
    [
      'toArtifact with dim 0',
      () => toArtifact({ kind: 'vector_ref', backend: 'b', collection: 'c', witness: WITNESS, dim: 0, count: 1 }),
      RangeError,
    ],
    ['toArtifact with empty Raw parts', () => toArtifact({ kind: 'raw', parts: [] }), RangeError],
    [
      'toArtifact with an unknown capability',
      () => toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'x', capabilities: ['admin'] } as unknown as ArtifactKind),
      TypeError,
    ],
    ['validateStructured with a non-validator', () => validateStructured({ kind: 'structured_json', value: 1 }, 5 as never), TypeError],
    ['negotiateArtifactKindVersion with a string', () => negotiateArtifactKindVersion('1' as never, ['1']), TypeError],
    ['checkArtifactVersion with numbers', () => checkArtifactVersion('1', [1] as never), TypeError],
    ['computeWitness of a string', () => computeWitness('abc' as never), TypeError],
    ['a witness hasher fed an array', () => createWitnessHasher().update([1] as never), TypeError],
    ['the node witness hasher fed a string', () => createNodeWitnessHasher().update('x' as never), TypeError],
    [
      'assertGrant with an unknown capability',
      () => assertGrant({ witness: WITNESS, capabilities: ['read'] }, 'admin' as never),
      TypeError,
    ],
    ['assertGrant with a null grant', () => assertGrant(null as never, 'read'), TypeError],
    ['store.get with a null grant', () => store.get(null as never), TypeError],
    ['store.put of a string', () => store.put('text' as never), TypeError],
    [
      'store.put of a stream of numbers',
      () =>
        store.put(
          (async function* () {
            yield 1 as never;
          })(),
        ),
      TypeError,
    ],
    ['memoryExtensionParams with an unknown capability', () => memoryExtensionParams({ capabilities: ['root' as never] }), TypeError],
    ['memoryExtensionParams with witness format 0', () => memoryExtensionParams({ witnessFormatVersion: 0 }), RangeError],
    ['encodeVectors with dim 0', () => collect(encodeVectors([], 0)), RangeError],
    ['encodeVectors with a fractional dim', () => collect(encodeVectors([], 1.5)), TypeError],
    ['encodeVectors with a plain array row', () => collect(encodeVectors([[1, 2] as never], 2)), TypeError],
    ['encodeVectors with a short row', () => collect(encodeVectors([new Float32Array(1)], 2)), RangeError],
    ['decodeVectors fed strings', () => collect(decodeVectors(['RVEC' as never])), TypeError],
    ['handOffVectors without a store', () => handOffVectors(undefined as never, generateVectors(1, 2), 2), TypeError],
    ['handOffVectors with non-iterable vectors', () => handOffVectors(store, 42 as never, 2), TypeError],
    ['handOffVectors with a string dim', () => handOffVectors(store, generateVectors(1, 2), '2' as never), TypeError],
    [
      'handOffVectors with an unknown capability',
      () => handOffVectors(store, generateVectors(1, 2), 2, { capabilities: ['admin' as never] }),
      TypeError,
    ],
    ['resolveHandOff with a non-store', () => resolveHandOff({} as never, witnessArtifact), TypeError],
    [
      'resolveHandOff requiring an unknown capability',
      () => resolveHandOff(store, witnessArtifact, { require: ['admin' as never] }),
      TypeError,
    ],
    ['createHandOffMessage of null', () => createHandOffMessage(null as never), TypeError],
    ['createFileSystemWitnessStore without a directory', () => createFileSystemWitnessStore({ directory: '' }), TypeError],
    [
      'createFileSystemWitnessStore with readChunkBytes 0',
      () => createFileSystemWitnessStore({ directory: '/tmp/x', readChunkBytes: 0 }),
      RangeError,
    ],
  ];

  it.each(cases)('%s', async (_name, run, type) => {
    const error = await thrown(run);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(EXPECTED_GOT);
  });

  it('nothing is written to the tier when handOffVectors gets bad arguments', async () => {
    let puts = 0;
    const counting = {
      ...createInMemoryWitnessStore(),
      put: async () => {
        puts++;
        return { witness: WITNESS, dataRef: 'x', size: 0 };
      },
    };
    await thrown(() => handOffVectors(counting, generateVectors(1, 2), 2, { capabilities: ['admin' as never] }));
    await thrown(() => handOffVectors(counting, generateVectors(1, 2), Number.NaN));
    expect(puts).toBe(0);
  });
});
