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

  it("§3.2.4 — the sample canonicalizes to exactly the RFC's UTF-8 bytes", () => {
    // The hex dump printed in RFC 8785 §3.2.4, copied verbatim.
    const RFC_HEX = `
      7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
      75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
      5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
      65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
      5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
      30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`;
    const expected = RFC_HEX.trim()
      .split(/\s+/)
      .map((h) => Number.parseInt(h, 16));
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(Array.from(canonicalBytes(input))).toEqual(expected);
  });
});

/**
 * The published JCS test data (input/ and output/ of the RFC 8785 reference implementation,
 * github.com/cyberphone/json-canonicalization testdata/), inlined: each input is the file's JSON
 * text, each output the exact canonical text.
 */
describe('RFC 8785 reference test data (cyberphone/json-canonicalization testdata)', () => {
  const cases: Array<[string, string, string]> = [
    ['arrays', '[\n  56,\n  {\n    "d": true,\n    "10": null,\n    "1": [ ]\n  }\n]', '[56,{"1":[],"10":null,"d":true}]'],
    [
      'french',
      '{\n  "peach": "This sorting order",\n  "péché": "is wrong according to French",\n  "pêche": "but canonicalization MUST",\n  "sin":   "ingnore locale"\n}\n',
      '{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ingnore locale"}',
    ],
    [
      'structures',
      '{\n  "1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0},\n  "10": { },\n  "": "empty",\n  "a": { },\n  "111": [ { } ],\n  "A": { }\n}',
      '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}',
    ],
    ['unicode (no normalization)', '{\n  "Unnormalized Unicode":"\\u1e0d\\u0307"\n}\n', '{"Unnormalized Unicode":"\u1e0d\u0307"}'],
    [
      'values',
      '{\n  "numbers": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001],\n  "escaping": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n  "literals": [null, true, false]\n}',
      '{"escaping":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false],"numbers":[1e+30,4.5,333333333.3333333,0.002,1e-27]}',
    ],
    [
      'weird',
      '{\n  "\\u20ac": "Euro Sign",\n  "1": "One",\n  "\\u0080": "Control\\u007f",\n  "\\ud83d\\ude02": "Smiley",\n  "\\u00f6": "Latin Small Letter O With Diaeresis",\n  "\\ufb33": "Hebrew Letter Dalet With Dagesh",\n  "</script>": "Browser Challenge"\n}\n',
      '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😂":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    ],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(canonicalize(JSON.parse(input))).toBe(expected);
    expect(canonicalBytes(JSON.parse(input))).toEqual(new TextEncoder().encode(expected));
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
