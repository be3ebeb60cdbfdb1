import {
  A2A_PROTOCOL_VERSION,
  type A2AMethod,
  InvalidAgentResponseError,
  isA2AMethod,
  splitExtensionList,
  UnauthenticatedError,
} from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATimeoutError, A2ATransportError, type AuthProvider, SseEventTooLargeError } from '@a2aplane/a2a-client';
import {
  type CallOptions as GrpcCallOptions,
  type ChannelCredentials,
  type ChannelOptions,
  Client,
  Metadata,
  type ServiceError,
  status as Status,
} from '@grpc/grpc-js';
import { withRequiredCardFields } from './card-fields.js';
import { GRPC_OPERATIONS, type GrpcOperation, decodeToJson, encodeFromJson, passBytes, readEventId } from './codec.js';
import { A2A_EXTENSIONS_METADATA_KEY, A2A_VERSION_METADATA_KEY, LAST_EVENT_ID_METADATA_KEY, metadataTexts } from './metadata.js';
import { fromGrpcStatus, httpStatusOfGrpcCode, readStatusDetails } from './status.js';

export interface GrpcTransportOptions {
  /** The gRPC target of the agent's GRPC interface (`AgentInterface.url`), such as `host:port`. */
  target: string;
  /**
   * Required: `credentials.createSsl()` for TLS, or `credentials.createInsecure()` to talk
   * plaintext (a deliberate choice, e.g. to a local agent).
   */
  credentials: ChannelCredentials;
  /** grpc-js channel options (message size limits, keepalive, ...). */
  channelOptions?: ChannelOptions;
  /**
   * Adds credentials to every call, as for HTTP (`bearerAuth`, `apiKeyAuth` with `location: 'header'`):
   * the headers it sets are sent as metadata. gRPC has no query string, so query parameters it adds
   * are not sent. After an `UNAUTHENTICATED` answer, `onUnauthorized()` returning true resends once.
   */
  auth?: AuthProvider | undefined;
}

/** Per-call options, as the a2a-client transports take them. */
export interface GrpcTransportCallOptions {
  /** Lower-case header names; sent as metadata (`a2a-version` is added unless present). */
  headers?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** Becomes the call's gRPC deadline. */
  timeoutMs?: number;
  /** Streams: a message larger than this fails the stream with `SseEventTooLargeError` (as over SSE). */
  maxEventBytes?: number;
  /** Streams: called when the response headers arrive (a sign of life that is not an item). */
  onActivity?: () => void;
  /**
   * Streams: resume after this event id (sent as `last-event-id` metadata; our servers honour it on
   * SubscribeToTask, as `Last-Event-ID` over SSE; servers that do not know it send the task snapshot).
   */
  lastEventId?: string;
  /**
   * Called with the extensions the agent activated (the `a2a-extensions` response metadata) once a
   * unary result was decoded, or once a stream's response headers arrived; its error fails the call.
   */
  onResponse?: (info: { readonly activatedExtensions: readonly string[] }) => void;
}

/**
 * One stream item, as the a2a-client transports yield them. `id` is the event id our servers send
 * with each item (decision 0030); `undefined` from servers that send none, such as the official SDK's.
 */
export interface GrpcStreamItem {
  data: unknown;
  id: string | undefined;
}

const AGENT_CARD_TYPE = 'lf.a2a.v1.AgentCard';

/** What the response metadata says besides the result: the extensions the agent activated. */
function responseInfoOf(metadata: Metadata | undefined): { activatedExtensions: readonly string[] } {
  return { activatedExtensions: metadata ? splitExtensionList(metadataTexts(metadata, A2A_EXTENSIONS_METADATA_KEY)) : [] };
}

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
    if (operation.output.typeName === AGENT_CARD_TYPE) result = withRequiredCardFields(result);
  } catch (cause) {
    throw new InvalidAgentResponseError({
      message: `expected a protobuf ${operation.output.typeName} from the agent, got bytes that do not decode`,
      cause,
    });
  }
  options.onResponse?.(responseInfoOf(received));
  return result;
}

/** Calls `onResponse` for an opened stream; its error runs `abandon` (the stream is cancelled) and fails the call. */
function reportOpened(options: GrpcTransportCallOptions, metadata: Metadata | undefined, abandon: () => void): void {
  try {
    options.onResponse?.(responseInfoOf(metadata));
  } catch (error) {
    abandon();
    throw error;
  }
}

/** Headers of the HTTP bindings that are not metadata (gRPC sets its own content type). */
const HTTP_ONLY_HEADERS = new Set(['content-type', 'accept', 'user-agent', 'host', 'content-length', 'connection', 'te']);

/** gRPC codes that say the agent was not reached or not able to answer: worth a retry. */
const RETRYABLE = new Set<number>([Status.UNAVAILABLE, Status.RESOURCE_EXHAUSTED, Status.ABORTED]);

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
    const onAbort = (): void => call.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const items: GrpcStreamItem[] = [];
    let failure: unknown;
    let ended = false;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const waiter = wake;
      wake = undefined;
      waiter?.();
    };
    const maxBytes = options.maxEventBytes;
    call.on('metadata', () => options.onActivity?.());
    call.on('data', (bytes: Buffer) => {
      if (failure !== undefined) return;
      if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
        failure = new SseEventTooLargeError(maxBytes);
        call.cancel();
        notify();
        return;
      }
      try {
        items.push({ data: decodeToJson(operation.output, bytes), id: readEventId(bytes) });
      } catch (cause) {
        failure = new InvalidAgentResponseError({
          message: `expected a protobuf ${operation.output.typeName} from the agent, got bytes that do not decode`,
          cause,
        });
        call.cancel();
      }
      // Backpressure: stop reading from the socket while the consumer has items to take.
      if (items.length >= 64) call.pause();
      notify();
    });
    call.on('error', (error: ServiceError) => {
      if (failure === undefined) failure = this.toError(error, options);
      ended = true;
      notify();
    });
    call.on('end', () => {
      ended = true;
      notify();
    });
    // Wait for the response headers (or an early status), so a refused call rejects here.
    const opened = await new Promise<Metadata | undefined>((resolve) => {
      call.once('metadata', (received: Metadata) => resolve(received));
      call.once('data', () => resolve(undefined));
      call.once('error', () => resolve(undefined));
      call.once('end', () => resolve(undefined));
    });
    const release = (): void => options.signal?.removeEventListener('abort', onAbort);
    if (items.length === 0 && ended && failure !== undefined) {
      release();
      throw failure;
    }
    reportOpened(options, opened, () => {
      release();
      call.cancel();
    });
    return {
      [Symbol.asyncIterator]: (): AsyncIterator<GrpcStreamItem> => ({
        next: async () => {
          for (;;) {
            const item = items.shift();
            if (item) {
              if (items.length < 16) call.resume();
              return { done: false, value: item };
            }
            if (ended) {
              release();
              if (failure !== undefined) {
                const error = failure;
                failure = undefined;
                throw error;
              }
              return { done: true, value: undefined };
            }
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        return: async () => {
          release();
          if (!ended) call.cancel();
          ended = true;
          failure = undefined;
          return { done: true, value: undefined };
        },
      }),
    };
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

  /**
   * The call's headers (and those the auth provider adds) as metadata. The provider sees the call
   * as an HTTP request: POST to `http://<target><method path>` with the serialized request message
   * as its body, so a request signer (RFC 9421) covers the method path and the message's digest.
   */
  private async metadata(operation: GrpcOperation, message: Buffer, options: GrpcTransportCallOptions): Promise<Metadata> {
    let headers: Iterable<[string, string]> = Object.entries(options.headers ?? {});
    if (this.auth) {
      const request = {
        method: 'POST',
        url: new URL(`http://${this.url}${operation.path}`),
        headers: new Headers(options.headers ?? {}),
        body: message,
      };
      await this.auth.apply(request);
      headers = request.headers.entries();
    }
    const metadata = new Metadata();
    for (const [key, value] of headers) {
      // HTTP-only headers have no meaning on a gRPC call.
      if (HTTP_ONLY_HEADERS.has(key)) continue;
      metadata.set(key, value);
    }
    if (metadata.get(A2A_VERSION_METADATA_KEY).length === 0) metadata.set(A2A_VERSION_METADATA_KEY, A2A_PROTOCOL_VERSION);
    if (options.lastEventId !== undefined) metadata.set(LAST_EVENT_ID_METADATA_KEY, options.lastEventId);
    return metadata;
  }

  private callOptions(options: GrpcTransportCallOptions): Partial<GrpcCallOptions> {
    return options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
  }

  private toError(error: ServiceError, options: GrpcTransportCallOptions): Error {
    if (error.code === Status.CANCELLED && options.signal?.aborted) return new A2AAbortError({ cause: options.signal.reason });
    if (error.code === Status.DEADLINE_EXCEEDED && options.timeoutMs !== undefined)
      return new A2ATimeoutError(options.timeoutMs, { cause: error });
    if (readStatusDetails(error.metadata).some((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo'))
      return fromGrpcStatus(error);
    // `status` is the HTTP status the code stands for (UNAUTHENTICATED -> 401, ...), as the HTTP transports report it.
    return new A2ATransportError(`gRPC ${Status[error.code] ?? error.code}: ${error.details}`, {
      status: httpStatusOfGrpcCode(error.code),
      retryable: RETRYABLE.has(error.code),
      url: this.url,
      cause: error,
    });
  }
}

/** Makes a gRPC transport to one A2A agent; see `GrpcTransport`. */
export function createGrpcTransport(options: GrpcTransportOptions): GrpcTransport {
  return new GrpcTransport(options);
}
