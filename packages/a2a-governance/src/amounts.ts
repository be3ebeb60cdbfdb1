/** Checks an amount of spend (USD or tokens): a finite number >= 0, or absent. */
export function checkAmount(name: string, value: number | undefined): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
    throw new RangeError(`expected ${name} to be a finite number >= 0, got ${String(value)}`);
  }
}

/** Checks a configured limit: a finite number (or an integer) >= 0, or absent. */
export function checkLimit(name: string, value: number | undefined, integer: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`expected ${name} to be ${integer ? 'an integer' : 'a finite number'} >= 0, got ${String(value)}`);
  }
}
