/**
 * JSON Canonicalization Scheme (RFC 8785): object members sorted by their UTF-16 code units,
 * numbers in ECMAScript `Number.prototype.toString` form, strings with JSON's minimal escaping,
 * no insignificant whitespace.
 */
export function canonicalize(value: unknown): string {
  return serialize(value, new Set<object>());
}

/** UTF-8 bytes of {@link canonicalize}: the bytes that get signed. */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalize(value));
}

// A lone surrogate cannot be encoded as UTF-8; RFC 8785 §3.2.2.2 says to stop with an error.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new TypeError('expected well-formed Unicode, got a lone surrogate');
  // JSON.stringify escapes exactly what RFC 8785 §3.2.2.2 requires (", \, control characters).
  return JSON.stringify(text);
}

function serialize(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return serializeString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`expected a finite number, got ${value}`);
      // ECMAScript number serialization is the one RFC 8785 §3.2.2.3 adopts; -0 becomes 0.
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`expected a JSON value, got ${typeof value}`);
  }
  const object = value as object;
  const withToJson = object as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') return serialize((withToJson.toJSON as () => unknown)(), seen);
  if (seen.has(object)) throw new TypeError('expected an acyclic value, got a cycle');
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const items: string[] = [];
      for (let i = 0; i < object.length; i++) items.push(serialize(object[i], seen));
      return `[${items.join(',')}]`;
    }
    // Default string comparison in JavaScript is by UTF-16 code units, as RFC 8785 §3.2.3 requires.
    const keys = Object.keys(object).sort();
    const members: string[] = [];
    for (const key of keys) {
      members.push(`${serializeString(key)}:${serialize((object as Record<string, unknown>)[key], seen)}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(object);
  }
}
