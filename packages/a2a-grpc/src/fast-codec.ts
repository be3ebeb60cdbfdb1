import { type DescField, type DescMessage, fromBinary, fromJson, type JsonValue, ScalarType, toBinary, toJson } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, base64Decode, base64Encode, WireType } from '@bufbuild/protobuf/wire';

/**
 * A lean ProtoJSON <-> binary codec driven by the protobuf-es descriptors, for the hot A2A
 * messages (tasks, messages, parts, events). It writes straight from the JSON object into a
 * `BinaryWriter` (and reads into a plain object) instead of building a message object first,
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

function enumNumber(field: DescField & { enum?: { values: readonly { name: string; number: number }[] } }, value: unknown): number {
  if (typeof value === 'string') {
    const found = field.enum?.values.find((v) => v.name === value);
    return found ? found.number : fail();
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 ? value : fail();
}

function writeScalar(writer: BinaryWriter, type: ScalarType, value: unknown): void {
  switch (type) {
    case ScalarType.STRING:
      if (typeof value !== 'string') fail();
      writer.string(value as string);
      return;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') fail();
      writer.bool(value as boolean);
      return;
    case ScalarType.INT32:
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -2147483648 || value > 2147483647) fail();
      writer.int32(value as number);
      return;
    case ScalarType.BYTES:
      if (typeof value !== 'string') fail();
      writer.bytes(base64Decode(value as string));
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

/** An RFC 3339 string as `google.protobuf.Timestamp` fields; other spellings go to protobuf-es. */
function writeTimestamp(writer: BinaryWriter, number: number, value: unknown): void {
  const match = typeof value === 'string' ? RFC3339.exec(value) : null;
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
  const nanos = fraction ? Number(fraction.padEnd(9, '0')) : 0;
  writer.tag(number, WireType.LengthDelimited).fork();
  if (seconds !== 0) writer.tag(1, WireType.Varint).int64(seconds);
  if (nanos !== 0) writer.tag(2, WireType.Varint).int32(nanos);
  writer.join();
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

function writeMessageField(writer: BinaryWriter, number: number, desc: DescMessage, value: unknown): void {
  if (desc.typeName === TIMESTAMP) {
    writeTimestamp(writer, number, value);
    return;
  }
  const plan = planOf(desc);
  if (plan.wkt) {
    writer.tag(number, WireType.LengthDelimited).bytes(toBinary(desc, fromJson(desc, value as JsonValue, JSON_OPTIONS)));
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail();
  writer.tag(number, WireType.LengthDelimited).fork();
  writeFields(writer, plan, value as Record<string, unknown>);
  writer.join();
}

function writeFields(writer: BinaryWriter, plan: Plan, json: Record<string, unknown>): void {
  for (const key in json) if (!plan.byJsonName.has(key)) fail();
  let oneofSeen: unknown;
  for (const field of plan.fields) {
    const value = json[field.jsonName];
    if (value === undefined) continue;
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
        writer.tag(
          field.number,
          field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES ? WireType.LengthDelimited : WireType.Varint,
        );
        writeScalar(writer, field.scalar, value);
        break;
      case 'enum': {
        const number = enumNumber(field, value);
        if (field.presence === IMPLICIT && number === 0) continue;
        writer.tag(field.number, WireType.Varint).int32(number);
        break;
      }
      case 'message':
        writeMessageField(writer, field.number, field.message, value);
        break;
      case 'list': {
        if (!Array.isArray(value)) fail();
        const items = value as unknown[];
        if (items.length === 0) continue;
        if (field.listKind === 'message') {
          for (const item of items) writeMessageField(writer, field.number, field.message, item);
        } else if (field.listKind === 'enum') {
          writer.tag(field.number, WireType.LengthDelimited).fork();
          for (const item of items) writer.int32(enumNumber(field as never, item));
          writer.join();
        } else if (field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES) {
          for (const item of items) {
            writer.tag(field.number, WireType.LengthDelimited);
            writeScalar(writer, field.scalar, item);
          }
        } else {
          writer.tag(field.number, WireType.LengthDelimited).fork();
          for (const item of items) writeScalar(writer, field.scalar, item);
          writer.join();
        }
        break;
      }
      default:
        fail();
    }
  }
}

/** ProtoJSON -> binary for `desc`; throws `Unsupported` where protobuf-es must do it. */
export function fastEncode(desc: DescMessage, json: unknown): Uint8Array {
  const plan = planOf(desc);
  if (plan.wkt || typeof json !== 'object' || json === null || Array.isArray(json)) fail();
  const writer = new BinaryWriter();
  writeFields(writer, plan, json as Record<string, unknown>);
  return writer.finish();
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
