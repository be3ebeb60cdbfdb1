import { describe, expect, it } from 'vitest';
import { VECTOR_HEADER_BYTES, VectorCodecError, decodeVectors, encodeVectors } from '../src/index.js';
import { chunked, collect, concatBytes, createVectorChecksum, generateVectors } from './helpers.js';

async function encode(count: number, dim: number, seed = 3): Promise<Uint8Array> {
  return concatBytes(encodeVectors(generateVectors(count, dim, seed), dim));
}

async function codecError(bytes: Uint8Array): Promise<VectorCodecError> {
  try {
    await collect(decodeVectors(chunked(bytes, 97)));
  } catch (error) {
    if (VectorCodecError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected decoding to fail');
}

describe('RVEC vector codec', () => {
  it('round-trips vectors exactly, whatever the chunking', async () => {
    for (const [count, dim] of [
      [0, 3],
      [1, 1],
      [5, 7],
      [20_000, 8],
      [3, 65_536],
    ] as const) {
      const bytes = await encode(count, dim);
      const expected = createVectorChecksum();
      for (const row of generateVectors(count, dim, 3)) expected.add(row);
      // One-byte chunks only on small payloads: each chunk is an async step.
      for (const size of bytes.byteLength < 10_000 ? [1, 13, bytes.byteLength] : [13, 4096, bytes.byteLength]) {
        const actual = createVectorChecksum();
        for await (const row of decodeVectors(chunked(bytes, size))) {
          expect(row.length).toBe(dim);
          actual.add(row);
        }
        expect(actual.count()).toBe(count);
        expect(actual.value()).toBe(expected.value());
      }
    }
  });

  it('writes the documented layout: header, blocks of little-endian float32 rows, end marker with count', async () => {
    const bytes = await concatBytes(encodeVectors([new Float32Array([1, -2]), new Float32Array([0.5, 3])], 2));
    const view = new DataView(bytes.buffer);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('RVEC');
    expect(view.getUint16(4, true)).toBe(1);
    expect(view.getUint32(8, true)).toBe(2);
    expect(view.getUint32(VECTOR_HEADER_BYTES, true)).toBe(2);
    expect(view.getFloat32(VECTOR_HEADER_BYTES + 4, true)).toBe(1);
    expect(view.getFloat32(VECTOR_HEADER_BYTES + 8, true)).toBe(-2);
    expect(view.getFloat32(VECTOR_HEADER_BYTES + 16, true)).toBe(3);
    expect(view.getUint32(VECTOR_HEADER_BYTES + 20, true)).toBe(0);
    expect(view.getUint32(VECTOR_HEADER_BYTES + 24, true)).toBe(2);
    expect(bytes.byteLength).toBe(VECTOR_HEADER_BYTES + 4 + 16 + 12);
  });

  it('accepts an async source of vectors', async () => {
    async function* source(): AsyncGenerator<Float32Array> {
      yield* generateVectors(10, 4);
    }
    const rows = await collect(decodeVectors(encodeVectors(source(), 4)));
    expect(rows).toHaveLength(10);
  });

  it('raises a typed truncated error wherever the bytes stop, including on a row boundary', async () => {
    const bytes = await encode(100, 4);
    const rowBoundary = VECTOR_HEADER_BYTES + 4 + 50 * 16;
    for (const cut of [0, 5, VECTOR_HEADER_BYTES, VECTOR_HEADER_BYTES + 2, rowBoundary, rowBoundary + 3, bytes.byteLength - 1]) {
      const error = await codecError(bytes.subarray(0, cut));
      expect(error.code).toBe('truncated');
    }
  });

  it('rejects a bad magic, version, header, count or trailing bytes', async () => {
    const bytes = await encode(10, 4);
    const mutate = (offset: number, value: number) => {
      const copy = bytes.slice();
      copy[offset] = value;
      return copy;
    };
    expect((await codecError(mutate(0, 0x58))).code).toBe('bad-magic');
    expect((await codecError(mutate(4, 9))).code).toBe('unsupported-version');
    expect((await codecError(mutate(12, 1))).code).toBe('bad-header');
    expect((await codecError(mutate(bytes.byteLength - 8, 11))).code).toBe('count-mismatch');
    const trailing = new Uint8Array(bytes.byteLength + 1);
    trailing.set(bytes);
    expect((await codecError(trailing)).code).toBe('trailing-bytes');
    const zeroDim = bytes.slice();
    new DataView(zeroDim.buffer).setUint32(8, 0, true);
    expect((await codecError(zeroDim)).code).toBe('bad-header');
  });

  it('rejects programmer errors with TypeError / RangeError', async () => {
    await expect(collect(encodeVectors([], 0))).rejects.toBeInstanceOf(RangeError);
    await expect(collect(encodeVectors([], 1.5))).rejects.toBeInstanceOf(TypeError);
    await expect(collect(encodeVectors([new Float32Array(3)], 2))).rejects.toBeInstanceOf(RangeError);
    await expect(collect(encodeVectors([[1, 2] as never], 2))).rejects.toBeInstanceOf(TypeError);
  });

  it('releases the source when the consumer stops early', async () => {
    let closed = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        yield* chunked(await encode(100, 4), 16);
      } finally {
        closed = true;
      }
    }
    for await (const _row of decodeVectors(source())) break;
    expect(closed).toBe(true);
  });
});
