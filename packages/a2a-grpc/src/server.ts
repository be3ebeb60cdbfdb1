import type { JsonValue } from '@bufbuild/protobuf';
import { type A2AError, InternalError, InvalidParamsError } from '@a2aplane/a2a-types';
import {
  type A2AServer,
  activatedExtensions,
  type AuthenticationRequest,
  type CallerGoneHook,
  type CoreRequest,
  type CoreResponse,
  ON_CALLER_GONE,
  type StreamEvent,
  toA2AError,
} from '@a2aplane/a2a-server-express';
import {
  Metadata,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { type GrpcOperation, GRPC_OPERATIONS, decodeToJson, encodeFromJson, encodeStreamItem, passBytes } from './codec.js';
import { A2AService } from './gen/a2a_pb.js';
import {
  A2A_EXTENSIONS_METADATA_KEY,
  A2A_VERSION_METADATA_KEY,
  authRequestOf,
  LAST_EVENT_ID_METADATA_KEY,
  metadataText,
  metadataTexts,
  peerAddress,
} from './metadata.js';
import { toGrpcStatus } from './status.js';

export interface A2AGrpcServiceOptions {
  /**
   * `A2A-Version` assumed when a call sends no `a2a-version` metadata. Default `'1.0'`: the
   * `lf.a2a.v1` service is the v1.0 binding (over HTTP a missing header means 0.3).
   */
  defaultVersion?: string;
  /** Where unexpected failures of the binding (such as a result that does not encode) are reported. */
  onError?: (message: string, error?: unknown) => void;
}

/** The `lf.a2a.v1.A2AService` definition and its implementation, for `grpc.Server#addService`. */
export interface A2AGrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

type Call = ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>;

/** The grpc-js service definition with pass-through bytes: handlers convert, so failures become A2A errors. */
export function a2aServiceDefinition(): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of A2AService.methods) {
    const operation = GRPC_OPERATIONS.get(method.name as GrpcOperation['method']) as GrpcOperation;
    definition[method.localName] = {
      path: operation.path,
      requestStream: false,
      responseStream: operation.streaming,
      requestSerialize: passBytes.serialize,
      requestDeserialize: passBytes.deserialize,
      responseSerialize: passBytes.serialize,
      responseDeserialize: passBytes.deserialize,
    };
  }
  return definition as ServiceDefinition;
}

/**
 * Serves the eleven A2A operations over gRPC with the server core of `@a2aplane/a2a-server-express`
 * (`createA2AServer`): the same `handle()` as JSON-RPC and REST, so authentication (metadata goes
 * to the authenticator), rate limits, governance, push and the task store all apply.
 */
export function createA2AGrpcService(core: A2AServer, options: A2AGrpcServiceOptions = {}): A2AGrpcService {
  if (typeof core?.handle !== 'function') throw new TypeError(`expected an A2AServer from createA2AServer, got ${typeof core}`);
  const defaultVersion = options.defaultVersion ?? '1.0';
  const onError = options.onError ?? (() => undefined);

  /** The binding-neutral request of a call, or the error that its bytes are not a valid request message. */
  function coreRequestOf(operation: GrpcOperation, call: Call): GrpcCoreRequest | A2AError {
    let params: JsonValue;
    try {
      params = decodeToJson(operation.input, call.request);
    } catch {
      return new InvalidParamsError({ message: `expected a protobuf ${operation.input.typeName}, got bytes that do not decode` });
    }
    return new GrpcCoreRequest(operation.method, params, call, defaultVersion);
  }

  /** Response metadata: the extensions the executor activated, echoed as `a2a-extensions` (spec §3.2). */
  function extensionMetadata(request: GrpcCoreRequest): Metadata {
    const metadata = new Metadata();
    const activated = activatedExtensions(request);
    if (activated.length > 0) metadata.set('a2a-extensions', activated.join(', '));
    return metadata;
  }

  function unary(operation: GrpcOperation) {
    return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
      const request = coreRequestOf(operation, call);
      if (!(request instanceof GrpcCoreRequest)) {
        callback(toGrpcStatus(request));
        return;
      }
      void core.handle(request).then((response: CoreResponse) => {
        if (response.kind === 'error') return callback(toGrpcStatus(response.error));
        if (response.kind === 'stream') return callback(toGrpcStatus(new InternalError()));
        call.sendMetadata(extensionMetadata(request));
        let bytes: Buffer;
        try {
          bytes = encodeFromJson(operation.output, response.result);
        } catch (error) {
          onError(`${operation.method} result does not encode as ${operation.output.typeName}`, error);
          return callback(toGrpcStatus(new InternalError()));
        }
        callback(null, bytes);
      });
    };
  }

  function streaming(operation: GrpcOperation) {
    return (call: ServerWritableStream<Buffer, Buffer>): void => {
      const request = coreRequestOf(operation, call);
      if (!(request instanceof GrpcCoreRequest)) {
        call.emit('error', toGrpcStatus(request));
        return;
      }
      // A stream always needs the signal: it stops writing when the caller goes away.
      const signal = request.signal;
      void core.handle(request).then(async (response: CoreResponse) => {
        if (response.kind === 'error') return void call.emit('error', toGrpcStatus(response.error));
        if (response.kind === 'result') return void call.emit('error', toGrpcStatus(new InternalError()));
        // The response headers at once, as SSE sends its headers: a client knows the stream is
        // established before the first event (a resumed SubscribeToTask may wait for one).
        call.sendMetadata(extensionMetadata(request));
        const failure = await pipe(operation, response.events, call, signal);
        if (signal.aborted) return;
        if (failure) call.emit('error', toGrpcStatus(failure));
        else call.end();
      });
    };
  }

  /** Writes the events to the call, waiting for `drain` under backpressure; stops when the call is cancelled. */
  async function pipe(
    operation: GrpcOperation,
    events: AsyncIterable<StreamEvent>,
    call: ServerWritableStream<Buffer, Buffer>,
    signal: AbortSignal,
  ): Promise<A2AError | undefined> {
    const iterator = events[Symbol.asyncIterator]();
    const cancelled = new Promise<IteratorResult<StreamEvent>>((resolve) => {
      if (signal.aborted) resolve({ done: true, value: undefined });
      signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
    });
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), cancelled]);
        if (next.done || signal.aborted) return undefined;
        let bytes: Buffer;
        try {
          bytes = encodeStreamItem(operation.output, next.value.data, next.value.id);
        } catch (error) {
          onError(`${operation.method} event does not encode as ${operation.output.typeName}`, error);
          return new InternalError();
        }
        if (!call.write(bytes))
          await new Promise<void>((resolve) => {
            const done = (): void => {
              call.off('drain', done);
              signal.removeEventListener('abort', done);
              resolve();
            };
            call.on('drain', done);
            signal.addEventListener('abort', done, { once: true });
          });
      }
    } catch (error) {
      return toA2AError(error);
    } finally {
      void iterator.return?.();
    }
  }

  const implementation: UntypedServiceImplementation = {};
  for (const method of A2AService.methods) {
    const operation = GRPC_OPERATIONS.get(method.name as GrpcOperation['method']) as GrpcOperation;
    implementation[method.localName] = operation.streaming ? streaming(operation) : unary(operation);
  }
  return { definition: a2aServiceDefinition(), implementation };
}

/**
 * The `CoreRequest` of one gRPC call. What most calls never need is made on first use: the
 * authenticator's view of the metadata and the `signal`. The core learns that the caller went
 * away through `ON_CALLER_GONE` (grpc-js's `cancelled`: the client cancelled, or its deadline
 * passed) without an `AbortController` per call.
 */
class GrpcCoreRequest implements CoreRequest, CallerGoneHook {
  readonly version: string;
  readonly extensions: string[] | undefined;
  readonly clientKey: string;
  /** A resumed SubscribeToTask: the id of the last event the client has (decision 0030). */
  readonly lastEventId: string | undefined;
  private authRequest: AuthenticationRequest | undefined;
  private controller: AbortController | undefined;

  constructor(
    readonly method: string,
    readonly params: JsonValue,
    private readonly call: Call,
    defaultVersion: string,
  ) {
    const metadata: Metadata = call.metadata;
    this.version = metadataText(metadata, A2A_VERSION_METADATA_KEY) ?? defaultVersion;
    const extensions = metadata.get(A2A_EXTENSIONS_METADATA_KEY);
    this.extensions = extensions.length === 0 ? undefined : metadataTexts(metadata, A2A_EXTENSIONS_METADATA_KEY);
    this.clientKey = clientKeyOf(call.getPeer());
    this.lastEventId = method === 'SubscribeToTask' ? metadataText(metadata, LAST_EVENT_ID_METADATA_KEY) : undefined;
  }

  get auth(): AuthenticationRequest {
    this.authRequest ??= authRequestOf(this.call);
    return this.authRequest;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      this[ON_CALLER_GONE](() => controller.abort(CANCELLED));
    }
    return this.controller.signal;
  }

  [ON_CALLER_GONE](listener: () => void): () => void {
    const call = this.call;
    if (call.cancelled) {
      listener();
      return noop;
    }
    call.once('cancelled', listener);
    return () => call.off('cancelled', listener);
  }
}

const noop = (): void => undefined;

/** The last peer seen and its address: the calls of one channel share a peer string. */
let lastPeer = '';
let lastPeerAddress = '';

function clientKeyOf(peer: string): string {
  if (peer !== lastPeer) {
    lastPeerAddress = peerAddress(peer);
    lastPeer = peer;
  }
  return lastPeerAddress;
}

const CANCELLED = new InternalError({ message: 'The call was cancelled or its deadline passed' });
