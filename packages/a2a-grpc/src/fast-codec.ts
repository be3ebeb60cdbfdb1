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
import { base64Decode, base64Encode, WireType } from '@bufbuild/protobuf/wire';

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
  /** The decoder's view of each field number: the field, its index in `fields`, the indexes of the other members of its oneof. */
  byNumber: ReadonlyMap<number, Slot>;
  /** Well-known types go to protobuf-es whole. */
  wkt: boolean;
}

interface Slot {
  field: DescField;
  index: number;
  others: readonly number[];
}

const plans = new WeakMap<DescMessage, Plan>();

function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (!plan) {
    plan = {
      desc,
      fields: desc.fields,
      byJsonName: new Map(desc.fields.map((f) => [f.jsonName, f])),
      byNumber: new Map(
        desc.fields.map((f, index) => [
          f.number,
          { field: f, index, others: f.oneof ? f.oneof.fields.filter((o) => o !== f).map((o) => desc.fields.indexOf(o)) : [] },
        ]),
      ),
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

/**
 * The decoder reads with one cursor over the whole input (decoding is synchronous): no sub-array,
 * reader or `DataView` per nested message as protobuf-es's `BinaryReader` makes, field values in
 * an array per message instead of a map, and ASCII strings read with `latin1` (other strings with a
 * `TextDecoder`).
 */
let src: Buffer = Buffer.alloc(0);
let at = 0;
// Fatal: invalid UTF-8 throws, and protobuf-es (which refuses it too) decides.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The low 32 bits of a varint (int32 and enum values, tags, lengths), as a signed int32. */
function varint32(): number {
  let byte = src[at++] as number;
  let value = byte & 0x7f;
  if (byte < 0x80) return value;
  byte = src[at++] as number;
  value |= (byte & 0x7f) << 7;
  if (byte < 0x80) return value;
  byte = src[at++] as number;
  value |= (byte & 0x7f) << 14;
  if (byte < 0x80) return value;
  byte = src[at++] as number;
  value |= (byte & 0x7f) << 21;
  if (byte < 0x80) return value;
  byte = src[at++] as number;
  value |= byte << 28;
  if (byte < 0x80) return value;
  // A 64-bit varint (a negative int32 is sign-extended to ten bytes): the rest is above bit 32.
  for (let i = 0; i < 5; i++) if ((src[at++] as number) < 0x80) return value;
  return fail();
}

/** A field tag: a varint that must fit 32 bits (protobuf-es refuses longer ones). */
function readTag(): number {
  const start = at;
  const tag = varint32();
  if (at - start > 4 && (src[start + 4] as number) > 0x0f) fail();
  return tag >>> 0;
}

/** A varint as a number (the seconds of a Timestamp: within ±2^53). */
function varint64(): number {
  let low = 0;
  let high = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    const byte = src[at++] as number;
    low |= (byte & 0x7f) << shift;
    if (byte < 0x80) return low >>> 0;
  }
  let byte = src[at++] as number;
  low |= (byte & 0x0f) << 28;
  high = (byte & 0x7f) >> 4;
  if (byte >= 0x80) {
    for (let shift = 3; shift <= 31; shift += 7) {
      byte = src[at++] as number;
      high |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
      if (shift === 31) fail();
    }
  }
  return high * 4294967296 + (low >>> 0);
}

/** Any varint is true unless all its bits are zero, as protobuf-es reads a bool. */
function varintBool(): boolean {
  let any = false;
  for (let i = 0; i < 10; i++) {
    const byte = src[at++] as number;
    if ((byte & 0x7f) !== 0) any = true;
    if (byte < 0x80) return any;
  }
  return fail();
}

/** The end of the length-delimited value that starts at the cursor (checked against `end`). */
function delimited(end: number): number {
  const length = varint32() >>> 0;
  const stop = at + length;
  if (stop > end) fail();
  return stop;
}

function text(stop: number): string {
  for (let i = at; i < stop; i++) {
    if ((src[i] as number) >= 0x80) {
      const value = utf8.decode(src.subarray(at, stop));
      at = stop;
      return value;
    }
  }
  const value = src.toString('latin1', at, stop);
  at = stop;
  return value;
}

function skip(wireType: number, end: number): void {
  switch (wireType) {
    case WireType.Varint:
      varint32();
      return;
    case WireType.Bit64:
      at += 8;
      return;
    case WireType.LengthDelimited:
      at = delimited(end);
      return;
    case WireType.Bit32:
      at += 4;
      return;
    default:
      // Groups (deprecated) and invalid wire types: protobuf-es decides.
      fail();
  }
}

function readScalar(type: ScalarType, wireType: number, end: number): JsonValue {
  switch (type) {
    case ScalarType.STRING:
      if (wireType !== WireType.LengthDelimited) fail();
      return text(delimited(end));
    case ScalarType.BOOL:
      if (wireType !== WireType.Varint) fail();
      return varintBool();
    case ScalarType.INT32:
      if (wireType !== WireType.Varint) fail();
      return varint32();
    case ScalarType.BYTES: {
      if (wireType !== WireType.LengthDelimited) fail();
      const stop = delimited(end);
      const value = base64Encode(src.subarray(at, stop));
      at = stop;
      return value;
    }
    default:
      return fail();
  }
}

function enumName(field: DescField & { enum?: { value: Record<number, { name: string } | undefined> } }, number: number): JsonValue {
  return field.enum?.value[number]?.name ?? number;
}

/** The last timestamp formatted: a task and its events repeat the same few. */
let lastTimestampSeconds = Number.NaN;
let lastTimestampNanos = 0;
let lastTimestampText = '';

/** `google.protobuf.Timestamp` fields up to `stop` as the RFC 3339 string protobuf-es writes (0, 3, 6 or 9 fraction digits). */
function readTimestamp(stop: number): string {
  let seconds = 0;
  let nanos = 0;
  while (at < stop) {
    const tag = readTag();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) fail();
    // A known field with another wire type: protobuf-es decides (it reads the declared type anyway).
    if ((number === 1 || number === 2) && wireType !== WireType.Varint) fail();
    if (number === 1) seconds = varint64();
    else if (number === 2) nanos = varint32();
    else skip(wireType, stop);
  }
  if (at !== stop) fail();
  if (seconds === lastTimestampSeconds && nanos === lastTimestampNanos) return lastTimestampText;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999999999) fail();
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  let formatted = `${base}Z`;
  if (nanos !== 0) {
    const digits = String(nanos).padStart(9, '0');
    const fraction = nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits;
    formatted = `${base}.${fraction}Z`;
  }
  lastTimestampSeconds = seconds;
  lastTimestampNanos = nanos;
  lastTimestampText = formatted;
  return formatted;
}

/** The message of `desc` from the cursor up to `stop`. */
function readMessage(desc: DescMessage, stop: number): JsonValue {
  if (desc.typeName === TIMESTAMP) return readTimestamp(stop);
  const plan = planOf(desc);
  if (plan.wkt) {
    const value = toJson(desc, fromBinary(desc, src.subarray(at, stop)));
    at = stop;
    return value;
  }
  return readFields(plan, stop);
}

function readFields(plan: Plan, end: number): { [key: string]: JsonValue } {
  const fields = plan.fields;
  const values: (JsonValue | undefined)[] = new Array(fields.length);
  while (at < end) {
    const tag = readTag();
    const wireType = tag & 7;
    // Field number 0 does not exist: protobuf-es refuses it.
    if (tag < 8) fail();
    const slot = plan.byNumber.get(tag >>> 3);
    if (!slot) {
      skip(wireType, end);
      continue;
    }
    const field = slot.field;
    switch (field.fieldKind) {
      case 'scalar':
        values[slot.index] = readScalar(field.scalar, wireType, end);
        break;
      case 'enum':
        if (wireType !== WireType.Varint) fail();
        values[slot.index] = varint32();
        break;
      case 'message':
        // A singular message sent twice is merged by protobuf; leave that to protobuf-es.
        if (wireType !== WireType.LengthDelimited || values[slot.index] !== undefined) fail();
        values[slot.index] = readMessage(field.message, delimited(end));
        break;
      case 'list': {
        let list = values[slot.index] as JsonValue[] | undefined;
        if (!list) {
          list = [];
          values[slot.index] = list;
        }
        if (field.listKind === 'message') {
          if (wireType !== WireType.LengthDelimited) fail();
          list.push(readMessage(field.message, delimited(end)));
        } else if (field.listKind === 'enum') {
          if (wireType === WireType.LengthDelimited) {
            const stop = delimited(end);
            while (at < stop) list.push(enumName(field as never, varint32()));
          } else if (wireType === WireType.Varint) list.push(enumName(field as never, varint32()));
          else fail();
        } else if (wireType === WireType.LengthDelimited && field.scalar !== ScalarType.STRING && field.scalar !== ScalarType.BYTES) {
          // Packed scalars.
          const stop = delimited(end);
          while (at < stop) list.push(readScalar(field.scalar, WireType.Varint, stop));
        } else list.push(readScalar(field.scalar, wireType, end));
        break;
      }
      default:
        fail();
    }
    // The last member of a oneof that arrives wins, as in protobuf.
    for (const other of slot.others) values[other] = undefined;
  }
  if (at !== end) fail();
  // Field order, and proto3 JSON: implicit-presence fields at their default and empty lists are left out.
  const out: { [key: string]: JsonValue } = {};
  for (let i = 0; i < fields.length; i++) {
    let value = values[i];
    if (value === undefined) continue;
    const field = fields[i] as DescField;
    if (field.fieldKind === 'list') {
      if ((value as JsonValue[]).length === 0) continue;
    } else if (field.fieldKind === 'enum') {
      if (field.presence === IMPLICIT && value === 0) continue;
      value = enumName(field as never, value as number);
    } else if (field.presence === IMPLICIT && field.fieldKind === 'scalar' && isDefaultScalar(value)) continue;
    out[field.jsonName] = value;
  }
  return out;
}

/** Binary -> ProtoJSON for `desc`; throws `Unsupported` where protobuf-es must do it (malformed input included). */
export function fastDecode(desc: DescMessage, bytes: Uint8Array): JsonValue {
  const plan = planOf(desc);
  if (plan.wkt) fail();
  src = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  at = 0;
  try {
    return readFields(plan, src.byteLength);
  } finally {
    // Do not keep the caller's bytes alive.
    src = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);
