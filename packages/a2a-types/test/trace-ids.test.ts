import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateSpanId, generateTraceId, isSpanId, isTraceId } from '../src/index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('generateTraceId / generateSpanId', () => {
  it('make lowercase hex ids of 32 and 16 digits, valid W3C ids, all different', () => {
    const traces = Array.from({ length: 600 }, () => generateTraceId());
    const spans = Array.from({ length: 600 }, () => generateSpanId());
    for (const id of traces) expect(id).toMatch(/^[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(traces.every(isTraceId) && spans.every(isSpanId)).toBe(true);
    expect(new Set(traces).size).toBe(traces.length);
    expect(new Set(spans).size).toBe(spans.length);
    // Every digit shows up: both nibbles of each byte are written.
    expect(new Set(traces.join('')).size).toBe(16);
  });

  it('spell the random bytes in order, high nibble first', () => {
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i % 16 === 0 ? 0xa5 : i % 256));
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      (array as unknown as Uint8Array).set(bytes);
      return array;
    });
    // Past whatever the pool holds now, the next block is the one above.
    let id = generateTraceId();
    for (let i = 0; i < 300 && spy.mock.calls.length === 0; i++) id = generateTraceId();
    expect(spy).toHaveBeenCalledTimes(1);
    expect(id).toBe(`a5${Array.from(bytes.subarray(1, 16), (b) => b.toString(16).padStart(2, '0')).join('')}`);
  });

  it('never hand out an all-zero id: a zero block of randomness is skipped', () => {
    let calls = 0;
    const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      calls++;
      // The first refill is all zeros; later ones are random.
      return calls === 1 ? array : (real(array as unknown as Uint8Array) as unknown as T);
    });
    const ids = Array.from({ length: 600 }, () => generateTraceId());
    expect(calls).toBeGreaterThanOrEqual(2);
    for (const id of ids) expect(isTraceId(id)).toBe(true);
  });
});
