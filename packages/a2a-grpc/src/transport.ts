import { type A2AMethod, isA2AMethod, UnauthenticatedError } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATransportError, type AuthProvider } from '@a2aplane/a2a-client';
import { type CallOptions as GrpcCallOptions, Client, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { grpcCallError, undecodableResponse } from './call-errors.js';
import { callMetadata } from './call-metadata.js';
import { GRPC_OPERATIONS, type GrpcOperation, decodeToJson, encodeFromJson, passBytes } from './codec.js';
import { withRequiredCardFields } from './card-fields.js';
import { responseInfoOf } from './response-info.js';
import { readServerStream } from './server-stream.js';
import type { GrpcStreamItem, GrpcTransportCallOptions, GrpcTransportOptions } from './transport-options.js';

export type { GrpcStreamItem, GrpcTransportCallOptions, GrpcTransportOptions } from './transport-options.js';

const AGENT_CARD_TYPE = 'lf.a2a.v1.AgentCard';

/** A unary call's result, decoded, after the `onResponse` hook saw its metadata; throws what fails the call. */
function readUnaryResult(
  operation: GrpcOperation,
  bytes: Buffer,
  received: Metadata | undefined,
  options: GrpcTransportCallOptions,
): unknown {
  let result: unknown;
  try {
    result = decodeToJson(operation.output, bytes);
    // Proto JSON leaves out an AgentCard's REQUIRED fields at their default: put them back, so a signed card verifies.
    if (operation.output.typeName === AGENT_CARD_TYPE) result = withRequiredCardFields(result);
  } catch (cause) {
    throw undecodableResponse(operation, cause);
  }
  options.onResponse?.(responseInfoOf(received));
  return result;
}

/**
 * The A2A gRPC binding on the client side: every operation of `lf.a2a.v1.A2AService` over
 * `@grpc/grpc-js`, with params and results in the ProtoJSON model of `@a2aplane/a2a-types`.
 * A status with an `ErrorInfo` becomes its `A2AError` class; a status without one (the agent was
 * not reached) an `A2ATransportError`; a passed deadline an `A2ATimeoutError`; an aborted signal an
 * `A2AAbortError`.
 */
export class GrpcTransport {
  readonly binding = 'GRPC' as const;
  readonly url: string;
  private readonly client: Client;
  private readonly auth: AuthProvider | undefined;

  constructor(options: GrpcTransportOptions) {
    if (typeof options?.target !== 'string' || options.target === '')
      throw new TypeError(`expected target to be a gRPC target such as host:port, got ${typeof options?.target}`);
    if (!options.credentials)
      throw new TypeError('expected credentials (credentials.createSsl or, deliberately, createInsecure), got none');
    this.url = options.target;
    this.auth = options.auth;
    this.client = new Client(options.target, options.credentials, options.channelOptions);
  }

  /** Sends a unary operation; resolves its raw (unvalidated) ProtoJSON result. */
  async call(method: A2AMethod, params: Record<string, unknown>, options: GrpcTransportCallOptions = {}): Promise<unknown> {
    const operation = this.operation(method, false);
    const request = this.encode(operation, params);
    try {
      return await this.unary(operation, request, await this.metadata(operation, request, options), options);
    } catch (error) {
      if (!(await this.shouldResend(error))) throw error;
      return this.unary(operation, request, await this.metadata(operation, request, options), options);
    }
  }

  private unary(operation: GrpcOperation, request: Buffer, metadata: Metadata, options: GrpcTransportCallOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(new A2AAbortError({ cause: options.signal.reason }));
      const call = this.client.makeUnaryRequest<Buffer, Buffer>(
        operation.path,
        passBytes.serialize,
        passBytes.deserialize,
        request,
        metadata,
        this.callOptions(options),
        (error, response) => {
          options.signal?.removeEventListener('abort', onAbort);
          if (error) return reject(this.toError(error, options));
          try {
            resolve(readUnaryResult(operation, response as Buffer, received, options));
          } catch (failure) {
            reject(failure);
          }
        },
      );
      let received: Metadata | undefined;
      if (options.onResponse) call.on('metadata', (metadata: Metadata) => (received = metadata));
      const onAbort = (): void => call.cancel();
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * After an UNAUTHENTICATED answer (with or without ErrorInfo, as HTTP resends on any 401), the auth
   * provider may refresh its credentials: then the call is sent once more.
   */
  private async shouldResend(error: unknown): Promise<boolean> {
    if (!this.auth?.onUnauthorized) return false;
    const unauthenticated = UnauthenticatedError.isInstance(error) || (A2ATransportError.isInstance(error) && error.status === 401);
    return unauthenticated && (await this.auth.onUnauthorized()) === true;
  }

  /** Opens a server stream; resolves once the agent sent its response headers (or the first event). */
  async open(
    method: A2AMethod,
    params: Record<string, unknown>,
    options: GrpcTransportCallOptions = {},
  ): Promise<AsyncIterable<GrpcStreamItem>> {
    const operation = this.operation(method, true);
    const request = this.encode(operation, params);
    try {
      return await this.stream(operation, request, await this.metadata(operation, request, options), options);
    } catch (error) {
      if (!(await this.shouldResend(error))) throw error;
      return this.stream(operation, request, await this.metadata(operation, request, options), options);
    }
  }

  private async stream(
    operation: GrpcOperation,
    request: Buffer,
    metadata: Metadata,
    options: GrpcTransportCallOptions,
  ): Promise<AsyncIterable<GrpcStreamItem>> {
    if (options.signal?.aborted) throw new A2AAbortError({ cause: options.signal.reason });
    const call = this.client.makeServerStreamRequest<Buffer, Buffer>(
      operation.path,
      passBytes.serialize,
      passBytes.deserialize,
      request,
      metadata,
      this.callOptions(options),
    );
    return readServerStream(call, operation, options, (error) => this.toError(error, options));
  }

  /** Closes the channel; calls in flight are cancelled. */
  close(): void {
    this.client.close();
  }

  private operation(method: A2AMethod, streaming: boolean): GrpcOperation {
    const operation = isA2AMethod(method) ? GRPC_OPERATIONS.get(method) : undefined;
    if (!operation) throw new TypeError(`expected an A2A method, got ${JSON.stringify(method)}`);
    if (operation.streaming !== streaming) throw new TypeError(`expected a ${streaming ? 'streaming' : 'unary'} method, got ${method}`);
    return operation;
  }

  private encode(operation: GrpcOperation, params: Record<string, unknown>): Buffer {
    try {
      return encodeFromJson(operation.input, params ?? {});
    } catch (error) {
      throw new TypeError(`expected ${operation.method} params in the A2A model, got: ${(error as Error).message}`);
    }
  }

  private metadata(operation: GrpcOperation, message: Buffer, options: GrpcTransportCallOptions): Promise<Metadata> {
    return callMetadata(this.auth, this.url, operation, message, options);
  }

  private callOptions(options: GrpcTransportCallOptions): Partial<GrpcCallOptions> {
    return options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
  }

  private toError(error: ServiceError, options: GrpcTransportCallOptions): Error {
    return grpcCallError(error, options, this.url);
  }
}

/** Makes a gRPC transport to one A2A agent; see `GrpcTransport`. */
export function createGrpcTransport(options: GrpcTransportOptions): GrpcTransport {
  return new GrpcTransport(options);
}
