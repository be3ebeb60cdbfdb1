import { describe, expect, it } from 'vitest';
import { encodeLiteralHeaders, HpackDecoder, HpackError, huffmanDecode } from '../src/lib/hpack.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('HpackDecoder', () => {
  it('decodes RFC 7541 C.4: requests with Huffman coding, sharing one dynamic table', () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ]);
    expect(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['cache-control', 'no-cache'],
    ]);
    expect(decoder.decode(hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 8925 a849 e95b b8e8 b4bf'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
  });

  it('decodes RFC 7541 C.2: literal fields without indexing and never indexed', () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex('040c 2f73 616d 706c 652f 7061 7468'))).toEqual([[':path', '/sample/path']]);
    expect(decoder.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74'))).toEqual([['password', 'secret']]);
    // Neither is added to the dynamic table: index 62 does not exist.
    expect(() => decoder.decode(hex('be'))).toThrow(HpackError);
  });

  it('evicts the oldest entries past the table size, and applies a size update', () => {
    const decoder = new HpackDecoder(64);
    // Two literal fields with incremental indexing, 32 + 1 + 1 octets each: the second evicts the first.
    decoder.decode(Buffer.from([0x40, 1, 0x61, 1, 0x31]));
    decoder.decode(Buffer.from([0x40, 1, 0x62, 1, 0x32]));
    expect(decoder.decode(hex('be'))).toEqual([['b', '2']]);
    expect(() => decoder.decode(hex('bf'))).toThrow(HpackError);
    // A size update to 0 empties the table.
    expect(() => decoder.decode(hex('20be'))).toThrow(HpackError);
    // Above what was advertised, or after a field: a decoding error.
    expect(() => decoder.decode(Buffer.from([0x3f, 0x22]))).toThrow(HpackError);
    expect(() => decoder.decode(hex('8820'))).toThrow(HpackError);
  });

  it('rejects truncated and out-of-table input', () => {
    const decoder = new HpackDecoder();
    expect(() => decoder.decode(hex('80'))).toThrow(HpackError);
    expect(() => decoder.decode(hex('040c 2f73'))).toThrow(HpackError);
    expect(() => decoder.decode(hex('7f'))).toThrow(HpackError);
  });

  it('reads what encodeLiteralHeaders writes, including long values and names outside the static table', () => {
    const headers: Array<[string, string]> = [
      [':method', 'POST'],
      [':path', `/lf.a2a.v1.A2AService/${'x'.repeat(200)}`],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['a2a-version', '1.0'],
    ];
    const block = encodeLiteralHeaders(headers);
    expect(new HpackDecoder().decode(block)).toEqual(headers);
    // Literal without indexing, name index 3 (:method) in the 4-bit prefix, then the raw string.
    expect([...block.subarray(0, 2)]).toEqual([0x02, 4]);
  });
});

describe('huffmanDecode', () => {
  it('decodes RFC 7541 C.6.1 values', () => {
    const decode = (text: string) => {
      const bytes = hex(text);
      return huffmanDecode(bytes, 0, bytes.length);
    };
    expect(decode('6402')).toBe('302');
    expect(decode('aec3 771a 4b')).toBe('private');
    expect(decode('9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3')).toBe('https://www.example.com');
  });

  it('rejects padding of 8 bits or more and padding that is not all ones', () => {
    // '0' is 00000 (5 bits): then 111 pads the byte; a whole byte of ones more is too much padding.
    expect(huffmanDecode(Buffer.from([0x07]), 0, 1)).toBe('0');
    expect(() => huffmanDecode(Buffer.from([0x07, 0xff]), 0, 2)).toThrow(HpackError);
    expect(() => huffmanDecode(Buffer.from([0x06]), 0, 1)).toThrow(HpackError);
    // 30 ones: EOS.
    expect(() => huffmanDecode(Buffer.from([0xff, 0xff, 0xff, 0xff]), 0, 4)).toThrow(HpackError);
  });
});
