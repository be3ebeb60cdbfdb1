/** Argument checks shared by the client's factory and its calls: wrong types throw `TypeError` / `RangeError`. */

export function checkObject(name: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`expected ${name} to be an object, got ${value === null ? 'null' : typeof value}`);
  }
}

/** A timeout option: a positive number of ms, or `false` / `undefined`. */
export function checkTimeout(name: string, value: unknown): void {
  if (value === undefined || value === false) return;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`expected ${name} to be a positive number of ms or false, got ${String(value)}`);
  }
}

/** The timeout in force: `false` disables, `undefined` falls back. */
export const timeoutOf = (value: number | false | undefined, fallback: number | undefined): number | undefined =>
  value === false ? undefined : (value ?? fallback);
