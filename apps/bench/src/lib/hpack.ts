/**
 * HPACK (RFC 7541) for the raw-socket gRPC load generator (lib/grpc-raw.ts): a full decoder (static
 * and dynamic tables, Huffman strings), because servers may index or Huffman-encode `grpc-status`
 * and `grpc-message`, and an encoder of literal header fields without indexing, the one
 * representation the generator sends (so its header blocks never depend on a table's state).
 */

export class HpackError extends Error {
  override readonly name = 'HpackError';
}

/** RFC 7541 Appendix A, index 1 to 61. */
const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/**
 * The Huffman code of RFC 7541 Appendix B is canonical (codes assigned in order of length, then
 * symbol), so the code lengths alone define it: one character per symbol 0-256 (256 = EOS), the
 * length being the character's code minus 'A' plus 5.
 */
const HUFFMAN_LENGTHS =
  'ISXXXXXXXTZXXZXXXXXXXXZXXXXXXXXXBFFHIBDGFFDGDBBBAAABBBBBBBCDKBHFIBCCCCCCCCCCCCCCCCCCCCCCDCDIOIJBKABABABBBACCBBBABCBAABCCCCCKGJIXPRPPRRRSRSSSSSTSTTRSTSSSSQRSRSSTRQPRRSSQSRRTQRSSQQRQSRSSPRRRSRRSVVPORSRUVVVWWVTUOQVWWVWTQQVVXWWWPTPQRQQSRRUUTTVSVWVVWWWWWXWWWWWVZ';
const EOS = 256;
const MAX_CODE_LENGTH = 30;

/** Canonical decoding tables: per code length, the first code, how many codes, and where their symbols start. */
const huffman = (() => {
  const lengths = Array.from(HUFFMAN_LENGTHS, (c) => c.charCodeAt(0) - 65 + 5);
  const symbols = lengths.map((_, symbol) => symbol).sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const firstCode = new Int32Array(MAX_CODE_LENGTH + 1);
  const count = new Int32Array(MAX_CODE_LENGTH + 1);
  const firstIndex = new Int32Array(MAX_CODE_LENGTH + 1);
  for (const length of lengths) count[length]! += 1;
  let code = 0;
  let index = 0;
  for (let length = 1; length <= MAX_CODE_LENGTH; length++) {
    firstCode[length] = code;
    firstIndex[length] = index;
    code = (code + count[length]!) << 1;
    index += count[length]!;
  }
  return { symbols: Int32Array.from(symbols), firstCode, count, firstIndex };
})();

/** Decodes a Huffman-coded string (RFC 7541 §5.2): padding must be under 8 bits of ones, EOS never appears. */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const { symbols, firstCode, count, firstIndex } = huffman;
  let out = '';
  let code = 0;
  let length = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    for (let bit = 7; bit >= 0; bit--) {
      code = (code << 1) | ((byte >> bit) & 1);
      length += 1;
      const offset = code - firstCode[length]!;
      if (offset < count[length]!) {
        const symbol = symbols[firstIndex[length]! + offset] as number;
        if (symbol === EOS) throw new HpackError('EOS in a Huffman-coded string');
        out += String.fromCharCode(symbol);
        code = 0;
        length = 0;
      } else if (length === MAX_CODE_LENGTH) {
        throw new HpackError('invalid Huffman code');
      }
    }
  }
  // What is left must be a prefix of EOS (all ones), shorter than a byte.
  if (length >= 8 || code !== (1 << length) - 1) throw new HpackError('invalid Huffman padding');
  return out;
}

/** A header block's fields, in order; names are lower-case as HTTP/2 requires. */
export type HeaderList = Array<[name: string, value: string]>;

/** RFC 7541 §4.1: each entry counts its name and value octets plus 32. */
const entrySize = (name: string, value: string): number => name.length + value.length + 32;

/**
 * One connection's decoding context (the dynamic table lives as long as the connection). Strings
 * are decoded as latin1: header values on the wire are octets, and gRPC's are ASCII.
 */
export class HpackDecoder {
  /** Newest first, as RFC 7541 indexes the dynamic table. */
  private readonly dynamic: Array<[string, string]> = [];
  private size = 0;
  private maxSize: number;

  /** `maxTableSize`: the SETTINGS_HEADER_TABLE_SIZE this side advertised (4096 unless set). */
  constructor(private readonly maxTableSize = 4096) {
    this.maxSize = maxTableSize;
  }

  /** Decodes one complete header block (HEADERS plus any CONTINUATION payloads). Throws HpackError on malformed input. */
  decode(block: Uint8Array): HeaderList {
    const fields: HeaderList = [];
    let at = 0;
    let sawField = false;
    const integer = (prefixBits: number): number => {
      const mask = (1 << prefixBits) - 1;
      if (at >= block.length) throw new HpackError('truncated integer');
      let value = (block[at++] as number) & mask;
      if (value < mask) return value;
      let shift = 0;
      for (;;) {
        if (at >= block.length) throw new HpackError('truncated integer');
        const byte = block[at++] as number;
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if ((byte & 0x80) === 0) return value;
        if (shift > 28) throw new HpackError('integer too large');
      }
    };
    const string = (): string => {
      if (at >= block.length) throw new HpackError('truncated string');
      const huffmanCoded = ((block[at] as number) & 0x80) !== 0;
      const length = integer(7);
      const end = at + length;
      if (end > block.length) throw new HpackError('truncated string');
      const value = huffmanCoded ? huffmanDecode(block, at, end) : latin1(block, at, end);
      at = end;
      return value;
    };
    const nameAt = (index: number): string => this.entry(index)[0];
    while (at < block.length) {
      const first = block[at] as number;
      if (first & 0x80) {
        // Indexed header field (§6.1).
        const index = integer(7);
        if (index === 0) throw new HpackError('index 0');
        const [name, value] = this.entry(index);
        fields.push([name, value]);
        sawField = true;
      } else if (first & 0x40) {
        // Literal with incremental indexing (§6.2.1).
        const index = integer(6);
        const name = index === 0 ? string() : nameAt(index);
        const value = string();
        fields.push([name, value]);
        this.insert(name, value);
        sawField = true;
      } else if (first & 0x20) {
        // Dynamic table size update (§6.3): only at the start of a block, never above what was advertised.
        if (sawField) throw new HpackError('table size update after a header field');
        const size = integer(5);
        if (size > this.maxTableSize) throw new HpackError(`table size ${size} above ${this.maxTableSize}`);
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing (§6.2.2) or never indexed (§6.2.3): both 4-bit prefixes.
        const index = integer(4);
        const name = index === 0 ? string() : nameAt(index);
        fields.push([name, string()]);
        sawField = true;
      }
    }
    return fields;
  }

  private entry(index: number): readonly [string, string] {
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1] as readonly [string, string];
    const entry = this.dynamic[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`index ${index} outside the tables`);
    return entry;
  }

  private insert(name: string, value: string): void {
    const size = entrySize(name, value);
    // An entry larger than the table empties it and is not added (§4.4).
    this.evict(size);
    if (size <= this.maxSize) {
      this.dynamic.unshift([name, value]);
      this.size += size;
    }
  }

  /** Evicts the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.size + room > this.maxSize && this.dynamic.length > 0) {
      const [name, value] = this.dynamic.pop() as [string, string];
      this.size -= entrySize(name, value);
    }
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) out += String.fromCharCode(bytes[i] as number);
  return out;
}

/** An HPACK integer with an `prefixBits`-bit prefix whose high bits are `flags` (§5.1). */
function encodeInteger(value: number, prefixBits: number, flags: number): number[] {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) return [flags | value];
  const out = [flags | mask];
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

const encodeString = (text: string): number[] => {
  const bytes = Buffer.from(text, 'latin1');
  return [...encodeInteger(bytes.length, 7, 0), ...bytes];
};

/**
 * A header block of literal fields without indexing (§6.2.2), names from the static table where it
 * has them, no Huffman coding: the same bytes whatever either side's table holds, so a block made
 * once serves every request of a connection.
 */
export function encodeLiteralHeaders(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  const out: number[] = [];
  for (const [name, value] of headers) {
    const index = STATIC_TABLE.findIndex(([staticName]) => staticName === name) + 1;
    if (index > 0) out.push(...encodeInteger(index, 4, 0));
    else out.push(0, ...encodeString(name));
    out.push(...encodeString(value));
  }
  return Buffer.from(out);
}
