import { type DescMessage, type DescMethod, fromBinary, fromJson, type JsonValue, toBinary, toJson } from '@bufbuild/protobuf';
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
  let bytes: Uint8Array;
  try {
    bytes = fastEncode(schema, json);
  } catch {
    bytes = toBinary(schema, fromJson(schema, json as JsonValue, JSON_READ));
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

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
