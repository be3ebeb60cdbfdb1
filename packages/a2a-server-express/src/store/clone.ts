/** Thrown inside `copy` when a value is not plain JSON-like data; `cloneStored` then falls back. */
const NOT_PLAIN = Symbol('not plain data');

/**
 * Deeper than this is treated as a possible cycle and left to `structuredClone`. Above the
 * server's input depth limit (64) plus the few levels a stored task wraps a message in.
 */
const MAX_DEPTH = 128;

/**
 * What a stored value costs in memory, roughly and on the high side: strings at two bytes a
 * character (V8 often needs one), a fixed overhead per value, object and property.
 */
const VALUE_BYTES = 16;
const PROPERTY_BYTES = 16;
const OBJECT_BYTES = 32;
const stringBytes = (text: string): number => VALUE_BYTES + 2 * text.length;

/** Bytes counted by the running `copy` (one copy runs at a time: it is synchronous). */
let counted = 0;

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    // structuredClone rejects functions and symbols: let it, so both paths fail the same way.
    if (typeof value === 'function' || typeof value === 'symbol') throw NOT_PLAIN;
    counted += typeof value === 'string' ? stringBytes(value) : VALUE_BYTES;
    return value;
  }
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  counted += OBJECT_BYTES;
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
  // for-in with an own check visits what Object.keys lists, in its order, without an array per object.
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    // An own `__proto__` key (JSON.parse makes them) would set the copy's prototype.
    if (key === '__proto__') throw NOT_PLAIN;
    counted += PROPERTY_BYTES + 2 * key.length;
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
  return cloneStoredSized(value).value;
}

/** `cloneStored`, and an estimate of the bytes the copy holds (for a store's byte budget). */
export function cloneStoredSized<T>(value: T): { value: T; bytes: number } {
  counted = 0;
  try {
    const out = copy(value, 0) as T;
    return { value: out, bytes: counted };
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    const out = structuredClone(value);
    return { value: out, bytes: estimateBytes(out) };
  }
}

/** The same estimate as `copy` counts, without recursion, for what `structuredClone` copied (each object counted once). */
function estimateBytes(value: unknown): number {
  let bytes = 0;
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') bytes += stringBytes(current);
    else if (typeof current !== 'object' || current === null) bytes += VALUE_BYTES;
    else if (!seen.has(current)) {
      seen.add(current);
      bytes += OBJECT_BYTES;
      if (current instanceof Map || current instanceof Set) {
        for (const entry of current) pending.push(entry);
      } else {
        for (const key of Object.keys(current)) {
          bytes += PROPERTY_BYTES + 2 * key.length;
          pending.push((current as Record<string, unknown>)[key]);
        }
      }
    }
  }
  return bytes;
}
