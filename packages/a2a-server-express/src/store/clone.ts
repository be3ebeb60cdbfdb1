/** Thrown inside `copy` when a value is not plain JSON-like data; `cloneStored` then falls back. */
const NOT_PLAIN = Symbol('not plain data');

/** Deeper than this is treated as a possible cycle and left to `structuredClone`. */
const MAX_DEPTH = 64;

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    // structuredClone rejects functions and symbols: let it, so both paths fail the same way.
    if (typeof value === 'function' || typeof value === 'symbol') throw NOT_PLAIN;
    return value;
  }
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw NOT_PLAIN;
      out[i] = copy(value[i], depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    // An own `__proto__` key (JSON.parse makes them) would set the copy's prototype.
    if (key === '__proto__') throw NOT_PLAIN;
    out[key] = copy(source[key], depth + 1);
  }
  return out;
}

/**
 * A deep copy with the result of `structuredClone` for the data a task store holds: plain objects,
 * arrays and primitives are copied directly (several times faster than `structuredClone` for
 * small records); anything else (dates, maps, class instances, cycles, sparse arrays) goes through
 * `structuredClone`.
 */
export function cloneStored<T>(value: T): T {
  try {
    return copy(value, 0) as T;
  } catch (error) {
    if (error === NOT_PLAIN) return structuredClone(value);
    throw error;
  }
}
