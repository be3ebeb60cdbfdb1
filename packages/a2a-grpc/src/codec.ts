import { type DescMessage, type DescMethod, fromBinary, fromJson, type JsonValue, toBinary, toJson } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { A2AMethod } from '@a2aplane/a2a-types';
import { fastDecode, fastEncode } from './fast-codec.js';
import { A2AService } from './gen/a2a_pb.js';

/**
 * One A2A operation on the gRPC service. Both sides of the binding convert at the edge between
 * protobuf binary and the ProtoJSON wire model of `@a2aplane/a2a-types` (protobuf-es `toJson` /
 * `fromJson`), so everything behind it (the server core, the client's validation) is shared with
 * JSON-RPC and REST.
 */
export interface GrpcOperation {
  /** The A2A method name (v1.0), which is also the rpc name. */
  method: A2AMethod;
  /** `/lf.a2a.v1.A2AService/<Method>`. */
  path: string;
  streaming: boolean;
  input: DescMessage;
  output: DescMessage;
}

const JSON_READ = { ignoreUnknownFields: true } as const;

function operationOf(method: DescMethod): GrpcOperation {
  return {
    method: method.name as A2AMethod,
    path: `/${A2AService.typeName}/${method.name}`,
    streaming: method.methodKind === 'server_streaming',
    input: method.input,
    output: method.output,
  };
}

/** Every operation of `lf.a2a.v1.A2AService`, by A2A method name. */
export const GRPC_OPERATIONS: ReadonlyMap<A2AMethod, GrpcOperation> = new Map(
  A2AService.methods.map((m) => [m.name as A2AMethod, operationOf(m)]),
);

/** Protobuf binary -> ProtoJSON. Throws on malformed input. */
export function decodeToJson(schema: DescMessage, bytes: Uint8Array): JsonValue {
  try {
    return fastDecode(schema, bytes);
  } catch {
    // Whatever the lean codec does not cover (or finds malformed), protobuf-es decides.
    return toJson(schema, fromBinary(schema, bytes));
  }
}

/**
 * ProtoJSON -> protobuf binary. Fields the message does not have are dropped (the binding cannot
 * carry them); values of the wrong type throw. The lean codec of fast-codec.ts writes the common
 * messages; protobuf-es does the rest.
 */
export function encodeFromJson(schema: DescMessage, json: unknown): Buffer {
  try {
    return fastEncode(schema, json);
  } catch {
    const bytes = toBinary(schema, fromJson(schema, json as JsonValue, JSON_READ));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/**
 * The event id of a stream item travels in this field of `StreamResponse`, which a2a.proto does not
 * declare (decision 0030): protobuf readers skip fields they do not know, so the official SDK and
 * other peers read the same message as without it, while our client resumes from the id
 * (`last-event-id` request metadata) as over SSE. Far above the numbers a2a.proto uses, below the
 * range protobuf reserves (19000-19999).
 */
export const EVENT_ID_FIELD = 10_000;

/** Longest event id the client accepts (the server's ids are decimal sequence numbers). */
const MAX_EVENT_ID_LENGTH = 128;

/** A stream item: its ProtoJSON, followed by its event id in `EVENT_ID_FIELD`. */
export function encodeStreamItem(schema: DescMessage, json: unknown, id: string): Buffer {
  try {
    return fastEncode(schema, json, { number: EVENT_ID_FIELD, value: id });
  } catch {
    const message = toBinary(schema, fromJson(schema, json as JsonValue, JSON_READ));
    const trailer = new BinaryWriter().tag(EVENT_ID_FIELD, WireType.LengthDelimited).string(id).finish();
    return Buffer.concat([message, trailer]);
  }
}

/**
 * The event id of a stream item: the last `EVENT_ID_FIELD` among its top-level fields (the message
 * itself is skipped over, not decoded), or `undefined` when it has none (the official SDK's
 * servers send none) or one that is not a short printable string.
 */
export function readEventId(bytes: Uint8Array): string | undefined {
  let id: string | undefined;
  try {
    const reader = new BinaryReader(bytes);
    while (reader.pos < bytes.byteLength) {
      const [number, wireType] = reader.tag();
      if (number === EVENT_ID_FIELD && wireType === WireType.LengthDelimited) id = reader.string();
      else reader.skip(wireType, number);
    }
  } catch {
    return undefined;
  }
  return id !== undefined && id.length > 0 && id.length <= MAX_EVENT_ID_LENGTH && EVENT_ID_TEXT.test(id) ? id : undefined;
}

/** Visible ASCII: what an id can be when it goes back as `last-event-id` metadata. */
const EVENT_ID_TEXT = /^[\x21-\x7e]+$/;

/** The protobuf-es reference path of `decodeToJson` (reflective), for checks and comparisons. */
export function referenceDecodeToJson(schema: DescMessage, bytes: Uint8Array): JsonValue {
  return toJson(schema, fromBinary(schema, bytes));
}

/** The protobuf-es reference path of `encodeFromJson` (reflective), for checks and comparisons. */
export function referenceEncodeFromJson(schema: DescMessage, json: unknown): Uint8Array {
  return toBinary(schema, fromJson(schema, json as JsonValue, JSON_READ));
}

/** grpc-js (de)serializers that pass the bytes through: the handlers convert, so failures map to A2A errors. */
export const passBytes = {
  serialize: (value: Buffer): Buffer => value,
  deserialize: (value: Buffer): Buffer => value,
};
