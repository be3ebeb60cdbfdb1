import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in time that does not depend on where they differ. Both sides are
 * hashed first, so the comparison also hides the length of the secret.
 */
export function timingSafeEqualString(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') {
    throw new TypeError(`expected two strings, got ${typeof a} and ${typeof b}`);
  }
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}
