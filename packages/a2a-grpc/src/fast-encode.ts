import { type DescEnum, type DescField, type DescMessage, fromJson, type JsonValue, ScalarType, toBinary } from '@bufbuild/protobuf';
import { base64Decode, WireType } from '@bufbuild/protobuf/wire';
import {
  fail,
  IMPLICIT,
  isDefaultScalar,
  JSON_OPTIONS,
  MAX_SECONDS,
  MIN_SECONDS,
  type Plan,
  planOf,
  TIMESTAMP,
  Unsupported,
} from './fast-codec-plan.js';

// JSON -> binary (see fast-codec-plan.ts for what the lean codec covers).

/**
 * The encoder writes into one growable buffer shared by every call (encoding is synchronous) and
 * copies the result out: no chunk list per nested message as in protobuf-es's `BinaryWriter`, and
 * strings go straight from V8 into the buffer (`Buffer#write`) instead of through a `TextEncoder`.
 */
const INITIAL_BYTES = 16 * 1024;
const MAX_KEPT_BYTES = 1024 * 1024;
let out = Buffer.allocUnsafe(INITIAL_BYTES);
let pos = 0;

function ensure(bytes: number): void {
  if (pos + bytes <= out.length) return;
  let size = out.length * 2;
  while (size < pos + bytes) size *= 2;
  const next = Buffer.allocUnsafe(size);
  out.copy(next, 0, 0, pos);
  out = next;
}

/** An unsigned varint below 2^32 (tags, lengths, non-negative int32). */
function uvarint(value: number): void {
  ensure(5);
  while (value > 0x7f) {
    out[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[pos++] = value;
}

/** An int32 as protobuf writes it: a negative value is sign-extended to ten bytes. */
function int32(value: number): void {
  if (value >= 0) {
    uvarint(value);
    return;
  }
  ensure(10);
  let low = value >>> 0;
  for (let i = 0; i < 4; i++) {
    out[pos++] = (low & 0x7f) | 0x80;
    low >>>= 7;
  }
  // The last 4 bits of the low word and the first 3 (set) bits of the high word, then its other 29 set bits.
  out[pos++] = (low & 0x0f) | 0xf0;
  for (let i = 0; i < 4; i++) out[pos++] = 0xff;
  out[pos++] = 0x01;
}

/** An int64 within the range of a Timestamp's seconds (|value| < 2^53). */
function int64(value: number): void {
  if (value < 0) {
    let big = BigInt.asUintN(64, BigInt(value));
    ensure(10);
    while (big > 0x7fn) {
      out[pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    out[pos++] = Number(big);
    return;
  }
  ensure(8);
  while (value > 0x7f) {
    out[pos++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  out[pos++] = value;
}

const tag = (number: number, wireType: WireType): void => uvarint((number << 3) | wireType);

function string(value: string): void {
  const length = value.length;
  // At most 3 UTF-8 bytes per UTF-16 unit: a short string's length prefix is known to be one byte.
  if (length < 43) {
    ensure(1 + 3 * length);
    // Short ASCII strings are copied here: cheaper than a call into the runtime per string.
    let at = pos + 1;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) {
        at = pos + 1 + out.write(value, pos + 1, 'utf8');
        break;
      }
      out[at++] = code;
    }
    out[pos] = at - pos - 1;
    pos = at;
    return;
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  uvarint(bytes);
  ensure(bytes);
  pos += out.write(value, pos, 'utf8');
}

function rawBytes(value: Uint8Array): void {
  uvarint(value.byteLength);
  ensure(value.byteLength);
  out.set(value, pos);
  pos += value.byteLength;
}

/** Starts a length-delimited field whose length is not known yet; `endDelimited` writes it. */
function beginDelimited(): number {
  ensure(1);
  pos += 1;
  return pos;
}

/** Writes the length before the content that started at `start` (moving the content when it needs more than one byte). */
function endDelimited(start: number): void {
  const length = pos - start;
  if (length < 0x80) {
    out[start - 1] = length;
    return;
  }
  let extra = 0;
  for (let rest = length >>> 7; rest > 0; rest >>>= 7) extra++;
  ensure(extra);
  out.copyWithin(start + extra, start, pos);
  const end = pos + extra;
  pos = start - 1;
  uvarint(length);
  pos = end;
}

/** Enum value numbers by name, per enum. */
const enumNumbers = new WeakMap<object, ReadonlyMap<string, number>>();

function enumNumber(field: DescField & { enum?: DescEnum }, value: unknown): number {
  if (typeof value === 'string') {
    const desc = field.enum;
    if (!desc) return fail();
    let numbers = enumNumbers.get(desc);
    if (!numbers) {
      numbers = new Map(desc.values.map((v) => [v.name, v.number]));
      enumNumbers.set(desc, numbers);
    }
    const found = numbers.get(value);
    return found === undefined ? fail() : found;
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 ? value : fail();
}

function writeScalar(type: ScalarType, value: unknown): void {
  switch (type) {
    case ScalarType.STRING:
      if (typeof value !== 'string') fail();
      string(value as string);
      return;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') fail();
      ensure(1);
      out[pos++] = value ? 1 : 0;
      return;
    case ScalarType.INT32:
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -2147483648 || value > 2147483647) fail();
      int32(value as number);
      return;
    case ScalarType.BYTES:
      if (typeof value !== 'string') fail();
      rawBytes(base64Decode(value as string));
      return;
    default:
      fail();
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** The last timestamp parsed: a task's events and snapshot repeat the same few. */
let lastTimestamp = '';
let lastSeconds = 0;
let lastNanos = 0;

/** An RFC 3339 string as `google.protobuf.Timestamp` fields; other spellings go to protobuf-es. */
function writeTimestamp(number: number, value: unknown): void {
  if (typeof value !== 'string') fail();
  if (value !== lastTimestamp) parseTimestamp(value as string);
  tag(number, WireType.LengthDelimited);
  const start = beginDelimited();
  if (lastSeconds !== 0) {
    tag(1, WireType.Varint);
    int64(lastSeconds);
  }
  if (lastNanos !== 0) {
    tag(2, WireType.Varint);
    int32(lastNanos);
  }
  endDelimited(start);
}

function parseTimestamp(value: string): void {
  const match = RFC3339.exec(value);
  if (!match) throw new Unsupported();
  const [, year, month, day, hour, minute, second, fraction, zone] = match as unknown as string[];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999.
  const check = new Date(0);
  check.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  check.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const ms = check.getTime();
  // Out-of-range parts (month 13, second 61) roll over: such strings go to protobuf-es.
  if (
    Number.isNaN(ms) ||
    check.getUTCMonth() !== Number(month) - 1 ||
    check.getUTCDate() !== Number(day) ||
    check.getUTCHours() !== Number(hour) ||
    check.getUTCMinutes() !== Number(minute) ||
    check.getUTCSeconds() !== Number(second)
  )
    fail();
  let seconds = ms / 1000;
  if (zone !== 'Z') {
    const sign = zone?.[0] === '-' ? -1 : 1;
    seconds -= sign * (Number(zone?.slice(1, 3)) * 3600 + Number(zone?.slice(4, 6)) * 60);
  }
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) fail();
  lastSeconds = seconds;
  lastNanos = fraction ? Number(fraction.padEnd(9, '0')) : 0;
  lastTimestamp = value;
}

function writeMessageField(number: number, desc: DescMessage, value: unknown): void {
  if (desc.typeName === TIMESTAMP) {
    writeTimestamp(number, value);
    return;
  }
  const plan = planOf(desc);
  if (plan.wkt) {
    tag(number, WireType.LengthDelimited);
    rawBytes(toBinary(desc, fromJson(desc, value as JsonValue, JSON_OPTIONS)));
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail();
  tag(number, WireType.LengthDelimited);
  const start = beginDelimited();
  writeFields(plan, value as Record<string, unknown>);
  endDelimited(start);
}

function writeFields(plan: Plan, json: Record<string, unknown>): void {
  let present = 0;
  let oneofSeen: unknown;
  for (const field of plan.fields) {
    const value = json[field.jsonName];
    if (value === undefined) continue;
    present++;
    // `null` is the NullValue of a google.protobuf.Value field: protobuf-es decides.
    if (value === null) {
      if (field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Value') fail();
      continue;
    }
    if (field.oneof) {
      // Two members of one oneof: protobuf-es rejects it.
      if (oneofSeen === field.oneof) fail();
      oneofSeen = field.oneof;
    }
    switch (field.fieldKind) {
      case 'scalar':
        if (field.presence === IMPLICIT && isDefaultScalar(value)) continue;
        tag(
          field.number,
          field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES ? WireType.LengthDelimited : WireType.Varint,
        );
        writeScalar(field.scalar, value);
        break;
      case 'enum': {
        const number = enumNumber(field, value);
        if (field.presence === IMPLICIT && number === 0) continue;
        tag(field.number, WireType.Varint);
        int32(number);
        break;
      }
      case 'message':
        writeMessageField(field.number, field.message, value);
        break;
      case 'list': {
        if (!Array.isArray(value)) fail();
        const items = value as unknown[];
        if (items.length === 0) continue;
        if (field.listKind === 'message') {
          for (const item of items) writeMessageField(field.number, field.message, item);
        } else if (field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES) {
          for (const item of items) {
            tag(field.number, WireType.LengthDelimited);
            writeScalar(field.scalar, item);
          }
        } else {
          // Packed: enums and other scalars.
          tag(field.number, WireType.LengthDelimited);
          const start = beginDelimited();
          if (field.listKind === 'enum') for (const item of items) int32(enumNumber(field as never, item));
          else for (const item of items) writeScalar(field.scalar, item);
          endDelimited(start);
        }
        break;
      }
      default:
        fail();
    }
  }
  // A key the message does not have (or a proto field name): protobuf-es decides. The keys are
  // looked up only when there are more of them than fields written.
  let keys = 0;
  for (const _ in json) keys++;
  if (keys !== present) for (const key in json) if (!plan.byJsonName.has(key)) fail();
}

/**
 * ProtoJSON -> binary for `desc`; throws `Unsupported` where protobuf-es must do it. `extra`, when
 * given, is written after the message's own fields as one more string field (the event id of a
 * stream item, codec.ts).
 */
export function fastEncode(desc: DescMessage, json: unknown, extra?: { number: number; value: string }): Buffer {
  const plan = planOf(desc);
  if (plan.wkt || typeof json !== 'object' || json === null || Array.isArray(json)) fail();
  pos = 0;
  writeFields(plan, json as Record<string, unknown>);
  if (extra !== undefined) {
    tag(extra.number, WireType.LengthDelimited);
    string(extra.value);
  }
  const bytes = Buffer.allocUnsafe(pos);
  out.copy(bytes, 0, 0, pos);
  // One large message must not keep a large buffer alive for good.
  if (out.length > MAX_KEPT_BYTES) out = Buffer.allocUnsafe(INITIAL_BYTES);
  return bytes;
}
