/**
 * A short description of a value for "expected X, got Y" TypeErrors (STYLE.md): the kind and size,
 * never the content, so it never echoes secrets or payload data. Shared by every package.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
  }
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
  if (typeof value === 'number') return String(value);
  return typeof value;
}
