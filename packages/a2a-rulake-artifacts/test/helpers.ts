/** mulberry32: a small seeded PRNG so test vectors are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` vectors of `dim` values, produced one at a time so large counts never sit in memory. */
export function* generateVectors(count: number, dim: number, seed = 1): Generator<Float32Array> {
  const random = seededRandom(seed);
  for (let i = 0; i < count; i++) {
    const row = new Float32Array(dim);
    for (let j = 0; j < dim; j++) row[j] = random() * 2 - 1;
    yield row;
  }
}

/** An order-sensitive checksum over float32 bit patterns (FNV-1a over 32-bit words). */
export function createVectorChecksum(): { add(row: Float32Array): void; value(): number; count(): number } {
  let hash = 0x811c9dc5;
  let rows = 0;
  return {
    add(row) {
      const words = new Uint32Array(row.buffer, row.byteOffset, row.length);
      for (const word of words) hash = Math.imul(hash ^ word, 0x01000193) >>> 0;
      rows++;
    },
    value: () => hash,
    count: () => rows,
  };
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

export async function concatBytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks = await collect(source);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

export async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.slice(i, i + size);
}

/** Byte equality without vitest's element-by-element deep diff, which is slow on large buffers. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
