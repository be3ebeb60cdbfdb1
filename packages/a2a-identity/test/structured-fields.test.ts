import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64, parseDictionary, serializeInnerList, StructuredFieldError } from '../src/structured-fields.js';

describe('structured fields (RFC 8941), the part RFC 9421 uses', () => {
  it('parses inner lists with parameters, byte sequences, tokens, booleans and escaped strings', () => {
    const dict = parseDictionary('a=("@method" "x-h");created=1;keyid="k\\"1";flag, b=:AAE=:;p=tok, c, d=?0');
    const a = dict.get('a') as { items: Array<{ value: unknown }>; params: Map<string, unknown> };
    expect(a.items.map((i) => i.value)).toEqual(['@method', 'x-h']);
    expect([...a.params]).toEqual([
      ['created', 1],
      ['keyid', 'k"1'],
      ['flag', true],
    ]);
    expect(serializeInnerList(a as never)).toBe('("@method" "x-h");created=1;keyid="k\\"1";flag');
    expect((dict.get('b') as { value: Uint8Array }).value).toEqual(new Uint8Array([0, 1]));
    expect((dict.get('b') as { params: Map<string, unknown> }).params.get('p')).toEqual({ token: 'tok' });
    expect((dict.get('c') as { value: unknown }).value).toBe(true);
    expect((dict.get('d') as { value: unknown }).value).toBe(false);
  });

  it.each(['a=', 'a=(', 'a="unterminated', 'a=:AAE', 'a=:A:', 'a=1.5', 'A=1', 'a=1,', 'a=1 b=2', 'a="\\x"', 'a=:AA=A:'])(
    'refuses %s',
    (text) => {
      expect(() => parseDictionary(text)).toThrow(StructuredFieldError);
    },
  );

  it('base64 round-trips and is strict about padding and alphabet', () => {
    for (const length of [0, 1, 2, 3, 4, 31, 32, 64]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37) & 0xff);
      expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
    }
    expect(decodeBase64('AAE')).toBeUndefined();
    expect(decodeBase64('AA-_')).toBeUndefined();
    expect(decodeBase64('A===')).toBeUndefined();
  });

  it('base64 decodes as Buffer does, and refuses padding anywhere but the end and characters outside the alphabet', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 151 + length * 7) & 0xff);
      const text = Buffer.from(bytes).toString('base64');
      expect(decodeBase64(text)).toEqual(bytes);
    }
    for (const bad of ['=AAA', 'A=AA', 'AA=A', 'AAAA=AAA', '====', 'AA==AAAA', 'AAA\u00e9', 'AA A', 'AAAAA===']) {
      expect(decodeBase64(bad)).toBeUndefined();
    }
  });
});
