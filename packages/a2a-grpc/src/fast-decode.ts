import { type DescField, type DescMessage, fromBinary, type JsonValue, ScalarType, toJson } from '@bufbuild/protobuf';
import { base64Encode, WireType } from '@bufbuild/protobuf/wire';
import { fail, IMPLICIT, isDefaultScalar, MAX_SECONDS, MIN_SECONDS, type Plan, planOf, TIMESTAMP } from './fast-codec-plan.js';

// Binary -> JSON (see fast-codec-plan.ts for what the lean codec covers).

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
