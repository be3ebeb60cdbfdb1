/**
 * The few assertions the contract suites need, without `node:assert`: this package's entries are
 * browser-safe, and a suite must not pull a runner's assertion library either.
 */
export class ContractAssertionError extends Error {
  override name = 'ContractAssertionError';
}

export function ok(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ContractAssertionError(message);
}

export function equal<T>(actual: T, expected: T, message?: string): void {
  if (!Object.is(actual, expected)) {
    throw new ContractAssertionError(`${message ?? 'expected equal values'}: got ${describe(actual)}, expected ${describe(expected)}`);
  }
}

/** Structural equality of plain data (objects, arrays, primitives), key order aside. */
export function deepEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!same(actual, expected)) {
    throw new ContractAssertionError(
      `${message ?? 'expected deeply equal values'}: got ${describe(actual)}, expected ${describe(expected)}`,
    );
  }
}

function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function describe(value: unknown): string {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
