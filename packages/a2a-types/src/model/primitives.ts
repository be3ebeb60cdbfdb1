import * as z from 'zod/mini';
import { en } from 'zod/locales';

// zod/mini ships without messages (every issue reads "Invalid input"); classic zod loads the
// English locale on import. Load it here, unless the application chose a locale, so violations
// read as before. Every model schema imports this module, so bundlers keep the call.
if (!z.config().localeError) z.config(en());

/** `google.protobuf.Struct`: a JSON object with string keys and arbitrary JSON values. */
export const StructSchema = /*#__PURE__*/ z.record(z.string(), z.unknown());
export type Struct = z.infer<typeof StructSchema>;

const OFFSET = /([+-])(\d{2}):(\d{2})$/;

/**
 * An RFC 3339 date-time with a numeric offset, as the same instant in UTC with a `Z` suffix; the
 * fractional seconds keep their digits. A string that already ends in `Z` comes back as it is.
 */
export function toUtcTimestamp(value: string): string {
  const offset = OFFSET.exec(value);
  if (offset === null) return value;
  const minutes = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
  const local = value.slice(0, offset.index);
  const dot = local.indexOf('.');
  const whole = dot === -1 ? local : local.slice(0, dot);
  const fraction = dot === -1 ? '' : local.slice(dot);
  const utc = new Date(Date.parse(`${whole}Z`) - minutes * 60_000);
  return `${utc.toISOString().slice(0, 19)}${fraction}Z`;
}

/**
 * `google.protobuf.Timestamp` in ProtoJSON: an RFC 3339 string. Any offset is accepted on input
 * (spec §5.6.1: parse ISO 8601 correctly) and normalized to UTC with a `Z` suffix, which is also
 * what we emit. Fractional seconds are optional.
 */
export const TimestampSchema = /*#__PURE__*/ z.pipe(z.iso.datetime({ offset: true, local: false }), z.transform(toUtcTimestamp));
export type Timestamp = z.infer<typeof TimestampSchema>;

// ProtoJSON accepts both the standard and the URL-safe base64 alphabet, with or without padding.
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

/** `bytes` in ProtoJSON: base64 text. */
export const BytesSchema = /*#__PURE__*/ z.string().check(z.regex(BASE64, 'expected base64-encoded bytes'));

/** A proto `int32` carried as a JSON number. */
export const Int32Schema = /*#__PURE__*/ z.number().check(z.int(), z.gte(-2_147_483_648), z.lte(2_147_483_647));

/** An identifier: a non-empty string (proto3 treats the empty string as "not set"). */
export const IdSchema = /*#__PURE__*/ z.string().check(z.minLength(1, 'must not be empty'));

/** A required repeated field; §5.7 asks required arrays to be non-empty where the spec marks them so. */
export const nonEmptyArray = <T extends z.core.SomeType>(item: T) =>
  z.array(item).check(z.minLength(1, 'at least one element is required'));

/**
 * A repeated field that ProtoJSON writers omit when empty (proto3 has no presence for repeated
 * fields), so an absent value reads as `[]`.
 */
export const repeated = <T extends z.core.SomeType>(item: T) => z._default(z.array(item), () => []);
