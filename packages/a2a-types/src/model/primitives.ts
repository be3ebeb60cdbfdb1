import * as z from 'zod/mini';
import { en } from 'zod/locales';

// zod/mini ships without messages (every issue reads "Invalid input"); classic zod loads the
// English locale on import. Load it here, unless the application chose a locale, so violations
// read as before. Every model schema imports this module, so bundlers keep the call.
if (!z.config().localeError) z.config(en());

/** `google.protobuf.Struct`: a JSON object with string keys and arbitrary JSON values. */
export const StructSchema = z.record(z.string(), z.unknown());
export type Struct = z.infer<typeof StructSchema>;

/**
 * `google.protobuf.Timestamp` in ProtoJSON: an RFC 3339 string in UTC (`Z` suffix, spec §5.6.1).
 * Fractional seconds are optional; offsets other than `Z` are rejected.
 */
export const TimestampSchema = z.iso.datetime({ offset: false, local: false });
export type Timestamp = z.infer<typeof TimestampSchema>;

// ProtoJSON accepts both the standard and the URL-safe base64 alphabet, with or without padding.
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

/** `bytes` in ProtoJSON: base64 text. */
export const BytesSchema = z.string().check(z.regex(BASE64, 'expected base64-encoded bytes'));

/** A proto `int32` carried as a JSON number. */
export const Int32Schema = z.number().check(z.int(), z.gte(-2_147_483_648), z.lte(2_147_483_647));

/** An identifier: a non-empty string (proto3 treats the empty string as "not set"). */
export const IdSchema = z.string().check(z.minLength(1, 'must not be empty'));

/** A required repeated field; §5.7 asks required arrays to be non-empty where the spec marks them so. */
export const nonEmptyArray = <T extends z.core.SomeType>(item: T) =>
  z.array(item).check(z.minLength(1, 'at least one element is required'));

/**
 * A repeated field that ProtoJSON writers omit when empty (proto3 has no presence for repeated
 * fields), so an absent value reads as `[]`.
 */
export const repeated = <T extends z.core.SomeType>(item: T) => z._default(z.array(item), () => []);
