import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalize } from '../src/index.js';

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 Appendix B — number serialization', () => {
  // IEEE 754 bit patterns and their expected JCS text, copied from the RFC's table.
  const vectors: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  it.each(vectors)('0x%s -> %s', (bits, expected) => {
    expect(canonicalize(fromBits(bits))).toBe(expected);
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
  ])('0x%s (%s) is an error', (bits) => {
    expect(() => canonicalize(fromBits(bits))).toThrow(TypeError);
  });
});

describe('RFC 8785 §3.2.2 — sample input', () => {
  it('canonicalizes the RFC example', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('§3.2.4 — UTF-8 output of the sample', () => {
    const bytes = canonicalBytes({ string: '€$\u000f\nA' });
    expect(Array.from(bytes.slice(11, 14))).toEqual([0xe2, 0x82, 0xac]);
  });
});

describe('RFC 8785 §3.2.3 — property sorting by UTF-16 code units', () => {
  it('sorts the RFC example keys (non-ASCII, surrogate pair)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('sorts nested objects and keeps array order', () => {
    expect(canonicalize({ b: [3, { z: 1, a: 2 }], a: { d: true, c: null } })).toBe('{"a":{"c":null,"d":true},"b":[3,{"a":2,"z":1}]}');
  });
});

describe('RFC 8785 §3.2.2.2 — string escaping', () => {
  it.each([
    ['\u0000\u0001\u001f', '"\\u0000\\u0001\\u001f"'],
    ['\b\f\n\r\t', '"\\b\\f\\n\\r\\t"'],
    ['"\\', '"\\"\\\\"'],
    ['/\u007f\u2028', '"/\u007f\u2028"'],
  ])('escapes %j', (input, expected) => {
    expect(canonicalize(input)).toBe(expected);
  });

  it('rejects lone surrogates', () => {
    expect(() => canonicalize('\ud800')).toThrow(TypeError);
    expect(() => canonicalize({ '\udc00': 1 })).toThrow(TypeError);
  });
});

describe('canonicalize — non-JSON values', () => {
  it.each([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a bigint', 1n],
    ['a symbol', Symbol('x')],
    ['undefined in an object', { a: undefined }],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('throws TypeError on %s', (_name, value) => {
    expect(() => canonicalize(value)).toThrow(TypeError);
  });

  it('throws TypeError on cycles but accepts shared (acyclic) references', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => canonicalize(a)).toThrow(TypeError);
    const shared = { x: 1 };
    expect(canonicalize({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('keeps a "__proto__" member from JSON.parse as an ordinary member', () => {
    expect(canonicalize(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });
});
