import {
  type DescEnum,
  type DescField,
  type DescMessage,
  fromBinary,
  fromJson,
  type JsonValue,
  ScalarType,
  toBinary,
  toJson,
} from '@bufbuild/protobuf';
import { BinaryReader, base64Decode, base64Encode, WireType } from '@bufbuild/protobuf/wire';

/**
 * A lean ProtoJSON <-> binary codec driven by the protobuf-es descriptors, for the hot A2A
 * messages (tasks, messages, parts, events). It writes straight from the JSON object into a
 * reused buffer (and reads into a plain object) instead of building a message object first,
 * which is where protobuf-es's reflective `fromJson` + `toBinary` spend their time. It covers
 * string, bool, int32, bytes and enum scalars, lists and nested messages; well-known types
 * (`Struct`, `Value`, `Timestamp`) are handed to protobuf-es. Anything else — maps, other scalar
 * types, proto field names, values of the wrong type, a repeated singular message — throws
 * `Unsupported`, and the caller uses protobuf-es for the whole message (codec.ts). The results are
 * checked against protobuf-es's in test/fast-codec.test.ts.
 */
export class Unsupported extends Error {}

const IMPLICIT = 2;
const JSON_OPTIONS = { ignoreUnknownFields: true } as const;

interface Plan {
  desc: DescMessage;
  fields: readonly DescField[];
  byJsonName: ReadonlyMap<string, DescField>;
  byNumber: ReadonlyMap<number, DescField>;
  /** Well-known types go to protobuf-es whole. */
  wkt: boolean;
}

const plans = new WeakMap<DescMessage, Plan>();

function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (!plan) {
    plan = {
      desc,
      fields: desc.fields,
      byJsonName: new Map(desc.fields.map((f) => [f.jsonName, f])),
      byNumber: new Map(desc.fields.map((f) => [f.number, f])),
      wkt: desc.typeName.startsWith('google.protobuf.'),
    };
    plans.set(desc, plan);
  }
  return plan;
}

const fail = (): never => {
  throw new Unsupported();
};

// ---------------------------------------------------------------- JSON -> binary

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

const isDefaultScalar = (value: unknown): boolean => value === '' || value === false || value === 0;

const TIMESTAMP = 'google.protobuf.Timestamp';
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of google.protobuf.Timestamp. */
const MIN_SECONDS = -62135596800;
const MAX_SECONDS = 253402300799;

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

/** `google.protobuf.Timestamp` bytes as the RFC 3339 string protobuf-es writes (0, 3, 6 or 9 fraction digits). */
function readTimestamp(bytes: Uint8Array): string {
  const reader = new BinaryReader(bytes);
  let seconds = 0;
  let nanos = 0;
  while (reader.pos < bytes.byteLength) {
    const [number, wireType] = reader.tag();
    if (number === 1 && wireType === WireType.Varint) seconds = Number(reader.int64());
    else if (number === 2 && wireType === WireType.Varint) nanos = reader.int32();
    else reader.skip(wireType);
  }
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999999999) fail();
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (nanos === 0) return `${base}Z`;
  const digits = String(nanos).padStart(9, '0');
  const fraction = nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits;
  return `${base}.${fraction}Z`;
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

// ---------------------------------------------------------------- binary -> JSON

function readScalar(reader: BinaryReader, type: ScalarType): JsonValue {
  switch (type) {
    case ScalarType.STRING:
      return reader.string();
    case ScalarType.BOOL:
      return reader.bool();
    case ScalarType.INT32:
      return reader.int32();
    case ScalarType.BYTES:
      return base64Encode(reader.bytes());
    default:
      return fail();
  }
}

function enumName(field: DescField & { enum?: { value: Record<number, { name: string } | undefined> } }, number: number): JsonValue {
  return field.enum?.value[number]?.name ?? number;
}

/** Enum values are kept as numbers until the object is built (the zero value of an implicit field is left out). */
class EnumNumber {
  constructor(readonly number: number) {}
}

function readMessage(desc: DescMessage, bytes: Uint8Array): JsonValue {
  if (desc.typeName === TIMESTAMP) return readTimestamp(bytes);
  const plan = planOf(desc);
  if (plan.wkt) return toJson(desc, fromBinary(desc, bytes));
  return readFields(plan, new BinaryReader(bytes), bytes.byteLength);
}

function readFields(plan: Plan, reader: BinaryReader, end: number): { [key: string]: JsonValue } {
  const values = new Map<DescField, JsonValue>();
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    const field = plan.byNumber.get(number);
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    switch (field.fieldKind) {
      case 'scalar':
        values.set(field, readScalar(reader, field.scalar));
        break;
      case 'enum':
        values.set(field, new EnumNumber(reader.int32()) as never);
        break;
      case 'message':
        // A singular message sent twice is merged by protobuf; leave that to protobuf-es.
        if (values.has(field)) fail();
        values.set(field, readMessage(field.message, reader.bytes()));
        break;
      case 'list': {
        let list = values.get(field) as JsonValue[] | undefined;
        if (!list) {
          list = [];
          values.set(field, list);
        }
        if (field.listKind === 'message') list.push(readMessage(field.message, reader.bytes()));
        else if (wireType === WireType.LengthDelimited && field.scalar !== ScalarType.STRING && field.scalar !== ScalarType.BYTES) {
          const packedEnd = reader.uint32() + reader.pos;
          while (reader.pos < packedEnd)
            list.push(field.listKind === 'enum' ? enumName(field as never, reader.int32()) : readScalar(reader, field.scalar));
        } else list.push(field.listKind === 'enum' ? enumName(field as never, reader.int32()) : readScalar(reader, field.scalar));
        break;
      }
      default:
        fail();
    }
    // The last member of a oneof that arrives wins, as in protobuf.
    if (field.oneof) for (const other of field.oneof.fields) if (other !== field) values.delete(other);
  }
  // Field order, and proto3 JSON: implicit-presence fields at their default and empty lists are left out.
  const out: { [key: string]: JsonValue } = {};
  for (const field of plan.fields) {
    let value = values.get(field);
    if (value === undefined) continue;
    if (field.fieldKind === 'list' && (value as JsonValue[]).length === 0) continue;
    if (value instanceof EnumNumber) {
      if (field.presence === IMPLICIT && value.number === 0) continue;
      value = enumName(field as never, value.number);
    } else if (field.presence === IMPLICIT && field.fieldKind === 'scalar' && isDefaultScalar(value)) continue;
    out[field.jsonName] = value;
  }
  return out;
}

/** Binary -> ProtoJSON for `desc`; throws `Unsupported` (or a decoding error) where protobuf-es must do it. */
export function fastDecode(desc: DescMessage, bytes: Uint8Array): JsonValue {
  const plan = planOf(desc);
  if (plan.wkt) fail();
  return readFields(plan, new BinaryReader(bytes), bytes.byteLength);
}
