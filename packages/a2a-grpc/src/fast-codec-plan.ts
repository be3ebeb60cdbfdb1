import type { DescField, DescMessage } from '@bufbuild/protobuf';

/**
 * A lean ProtoJSON <-> binary codec driven by the protobuf-es descriptors, for the hot A2A
 * messages (tasks, messages, parts, events). It writes straight from the JSON object into a
 * reused buffer (and reads into a plain object) instead of building a message object first,
 * which is where protobuf-es's reflective `fromJson` + `toBinary` spend their time. It covers
 * string, bool, int32, bytes and enum scalars, lists and nested messages; well-known types
 * (`Struct`, `Value`, `Timestamp`) are handed to protobuf-es. Anything else — maps, other scalar
 * types, proto field names, values of the wrong type, a repeated singular message — throws
 * `Unsupported`, and the caller uses protobuf-es for the whole message (codec.ts). The results are
 * checked against protobuf-es's in test/fast-codec.test.ts. This module holds what both directions
 * share: the per-message plan and the `Unsupported` hand-over; fast-encode.ts and fast-decode.ts
 * hold one direction each.
 */
export class Unsupported extends Error {}

export const IMPLICIT = 2;
export const JSON_OPTIONS = { ignoreUnknownFields: true } as const;

/** The zero value of a string, bool or number scalar: not written for an implicit-presence field. */
export const isDefaultScalar = (value: unknown): boolean => value === '' || value === false || value === 0;

export const TIMESTAMP = 'google.protobuf.Timestamp';
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of google.protobuf.Timestamp. */
export const MIN_SECONDS = -62135596800;
export const MAX_SECONDS = 253402300799;

export interface Plan {
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

export function planOf(desc: DescMessage): Plan {
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

export const fail = (): never => {
  throw new Unsupported();
};
