/**
 * The slice of Structured Field Values (RFC 8941) that HTTP Message Signatures (RFC 9421) and
 * Content-Digest (RFC 9530) use: dictionaries whose members are items or inner lists, with
 * parameters. Bare items: integers, strings, tokens, byte sequences, booleans (decimals are
 * refused: no field here uses them). Parsing follows RFC 8941 §4.2 and fails on anything else.
 */
export type BareItem = number | string | Uint8Array | boolean | { token: string };
export type Parameters = Map<string, BareItem>;
interface Item {
  value: BareItem;
  params: Parameters;
}
export interface InnerList {
  items: Item[];
  params: Parameters;
}
type DictionaryMember = Item | InnerList;

export class StructuredFieldError extends Error {}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;

class Parser {
  i = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new StructuredFieldError(`expected ${what} at offset ${this.i}`);
  }
  peek(): string {
    return this.text[this.i] ?? '';
  }
  skipSp(): void {
    while (this.peek() === ' ') this.i++;
  }
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }

  key(): string {
    if (!KEY_START.test(this.peek())) this.fail('a key');
    const start = this.i;
    while (KEY_CHAR.test(this.peek())) this.i++;
    return this.text.slice(start, this.i);
  }

  bareItem(): BareItem {
    const c = this.peek();
    if (c === '-' || (c >= '0' && c <= '9')) return this.integer();
    if (c === '"') return this.string();
    if (c === ':') return this.bytes();
    if (c === '?') return this.boolean();
    if (TOKEN_START.test(c)) return this.token();
    return this.fail('a bare item');
  }

  integer(): number {
    const match = /^-?[0-9]{1,15}/.exec(this.text.slice(this.i));
    if (!match) this.fail('an integer');
    this.i += match[0].length;
    if (this.peek() === '.') this.fail('an integer (decimals are not supported)');
    return Number(match[0]);
  }

  string(): string {
    this.i++; // opening quote
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '') this.fail('a closing quote');
      this.i++;
      if (c === '"') return out;
      if (c === '\\') {
        const next = this.peek();
        if (next !== '"' && next !== '\\') this.fail('an escaped quote or backslash');
        out += next;
        this.i++;
        continue;
      }
      const code = c.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) this.fail('a printable ASCII character');
      out += c;
    }
  }

  token(): { token: string } {
    const start = this.i;
    this.i++;
    while (TOKEN_CHAR.test(this.peek())) this.i++;
    return { token: this.text.slice(start, this.i) };
  }

  bytes(): Uint8Array {
    this.i++; // opening colon
    const start = this.i;
    const end = this.text.indexOf(':', start);
    if (end < 0) this.fail('a closing colon');
    this.i = end;
    const decoded = decodeBase64(this.text.slice(start, this.i));
    this.i++;
    if (!decoded) this.fail('base64');
    return decoded;
  }

  boolean(): boolean {
    this.i++;
    const c = this.peek();
    if (c !== '0' && c !== '1') this.fail('?0 or ?1');
    this.i++;
    return c === '1';
  }

  params(): Parameters {
    const params: Parameters = new Map();
    while (this.peek() === ';') {
      this.i++;
      this.skipSp();
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.i++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  itemOrInnerList(): DictionaryMember {
    if (this.peek() !== '(') {
      const value = this.bareItem();
      return { value, params: this.params() };
    }
    this.i++;
    const items: Item[] = [];
    for (;;) {
      this.skipSp();
      if (this.peek() === ')') {
        this.i++;
        return { items, params: this.params() };
      }
      const value = this.bareItem();
      items.push({ value, params: this.params() });
      const c = this.peek();
      if (c !== ' ' && c !== ')') this.fail('a space or )');
    }
  }
}

/** Parses a Dictionary field value (RFC 8941 §4.2.2); later duplicates replace earlier ones, as the RFC says. */
export function parseDictionary(text: string): Map<string, DictionaryMember> {
  const parser = new Parser(text);
  const out = new Map<string, DictionaryMember>();
  parser.skipSp();
  while (parser.i < text.length) {
    const key = parser.key();
    let member: DictionaryMember;
    if (parser.peek() === '=') {
      parser.i++;
      member = parser.itemOrInnerList();
    } else {
      member = { value: true, params: parser.params() };
    }
    out.set(key, member);
    parser.skipOws();
    if (parser.i >= text.length) return out;
    if (parser.peek() !== ',') parser.fail('a comma');
    parser.i++;
    parser.skipOws();
    if (parser.i >= text.length) parser.fail('a member after the comma');
  }
  return out;
}

export function isInnerList(member: DictionaryMember): member is InnerList {
  return 'items' in member;
}

/** RFC 8941 §4.1 serialization of a bare item. */
function serializeBareItem(value: BareItem): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new StructuredFieldError(`expected an integer, got ${value}`);
    return String(value);
  }
  if (typeof value === 'string') {
    if (!/^[\x20-\x7e]*$/.test(value)) throw new StructuredFieldError('expected a printable ASCII string');
    return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  }
  if (typeof value === 'boolean') return value ? '?1' : '?0';
  if (value instanceof Uint8Array) return `:${encodeBase64(value)}:`;
  return value.token;
}

function serializeParams(params: Parameters): string {
  let out = '';
  for (const [key, value] of params) out += value === true ? `;${key}` : `;${key}=${serializeBareItem(value)}`;
  return out;
}

export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map((item) => serializeBareItem(item.value) + serializeParams(item.params)).join(' ')})${serializeParams(list.params)}`;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUES[B64.charCodeAt(i)] = i;

/** Standard base64 with padding (RFC 4648 §4), as structured-field byte sequences use. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}

/**
 * Strict standard base64 (padding required, no whitespace) of `text` from `start` to `end`;
 * `undefined` on anything else. Read in place: a slice would make every digit read go through it.
 */
export function decodeBase64(text: string, start = 0, end = text.length): Uint8Array | undefined {
  const length = end - start;
  if (length % 4 !== 0) return undefined;
  // Padding only at the very end, at most two; an '=' anywhere else is not a base64 digit below.
  const pad = length === 0 || text.charCodeAt(end - 1) !== 61 ? 0 : text.charCodeAt(end - 2) === 61 ? 2 : 1;
  const out = new Uint8Array((length / 4) * 3 - pad);
  const whole = pad === 0 ? end : end - 4;
  let o = 0;
  // Four digits at a time, by char code: this runs on every signed request.
  for (let i = start; i < whole; i += 4) {
    const n = (digit(text, i) << 18) | (digit(text, i + 1) << 12) | (digit(text, i + 2) << 6) | digit(text, i + 3);
    if (n < 0) return undefined;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (pad > 0) {
    const n = (digit(text, whole) << 18) | (digit(text, whole + 1) << 12) | (pad === 1 ? digit(text, whole + 2) << 6 : 0);
    if (n < 0) return undefined;
    out[o++] = n >> 16;
    if (pad === 1) out[o++] = (n >> 8) & 0xff;
  }
  return out;
}

/** The value of the base64 digit at `index`, or a value that makes any combination negative. */
function digit(text: string, index: number): number {
  const code = text.charCodeAt(index);
  // -1 << 18 and the like are negative too, and OR keeps the sign bit: one check per group.
  return code < 128 ? (B64_VALUES[code] as number) : -1;
}
