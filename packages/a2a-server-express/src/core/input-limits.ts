/**
 * Bounds on the shape of untrusted input, checked before anything else walks a request's params:
 * later stages (zod, the store's copy, `JSON.stringify` in logs, executors) recurse, and a
 * 12 KB body nested 2 000 levels deep is enough to overflow their stack.
 */
export interface InputLimits {
  /** Deepest nesting of objects and arrays in a request's params (the params object is depth 1). Default 64. */
  maxDepth?: number;
  /** Longest string (UTF-16 code units), object key included. Default 1 048 576 (the bindings' default body limit). */
  maxStringLength?: number;
  /** Most elements of one array, and most properties of one object. Default 10 000. */
  maxItems?: number;
}

export const DEFAULT_INPUT_LIMITS: Readonly<Required<InputLimits>> = Object.freeze({
  maxDepth: 64,
  maxStringLength: 1_048_576,
  maxItems: 10_000,
});

function checkLimit(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) throw new RangeError(`expected ${name} to be an integer >= 1, got ${String(value)}`);
  return resolved;
}

/** More objects and arrays than a 1 MiB JSON body can hold. */
const MAX_VISITED = 1_048_576;

export function resolveInputLimits(limits: InputLimits = {}): Required<InputLimits> {
  if (typeof limits !== 'object' || limits === null)
    throw new TypeError(`expected inputLimits to be an object, got ${limits === null ? 'null' : typeof limits}`);
  return {
    maxDepth: checkLimit(limits.maxDepth, DEFAULT_INPUT_LIMITS.maxDepth, 'inputLimits.maxDepth'),
    maxStringLength: checkLimit(limits.maxStringLength, DEFAULT_INPUT_LIMITS.maxStringLength, 'inputLimits.maxStringLength'),
    maxItems: checkLimit(limits.maxItems, DEFAULT_INPUT_LIMITS.maxItems, 'inputLimits.maxItems'),
  };
}

/**
 * Walks `value` without recursion (an explicit stack, so the check itself cannot overflow) and
 * returns why it exceeds `limits`, or `undefined` when it fits. Non-JSON values (functions,
 * symbols) are left to the schemas.
 */
export function findInputLimitViolation(value: unknown, limits: Required<InputLimits>): string | undefined {
  if (typeof value === 'string')
    return value.length > limits.maxStringLength ? `a string is longer than ${limits.maxStringLength} characters` : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  let visited = 0;
  while (values.length > 0) {
    // JSON has no shared references; an in-process caller's object graph may, and must not make this exponential.
    if (++visited > MAX_VISITED) return `more than ${MAX_VISITED} objects and arrays`;
    const current = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limits.maxDepth) return `nesting is deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(current)) {
      if (current.length > limits.maxItems) return `an array has more than ${limits.maxItems} elements`;
      for (let i = 0; i < current.length; i++) {
        const item: unknown = current[i];
        if (typeof item === 'string') {
          if (item.length > limits.maxStringLength) return `a string is longer than ${limits.maxStringLength} characters`;
        } else if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxItems) return `an object has more than ${limits.maxItems} properties`;
    for (const key of keys) {
      if (key.length > limits.maxStringLength) return `a property name is longer than ${limits.maxStringLength} characters`;
      const item: unknown = (current as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (item.length > limits.maxStringLength) return `a string is longer than ${limits.maxStringLength} characters`;
      } else if (typeof item === 'object' && item !== null) {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}
