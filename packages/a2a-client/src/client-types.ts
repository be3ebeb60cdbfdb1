import type { A2AMethod, A2ARequestMap, A2AResultMap, AgentCard, CircuitBreakerOptions, StreamResponse } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import type { CallContext } from './context.js';
import type { CardResolver, CardVerifier, TrustedCardKey, UnsignedCardPolicy } from './discovery.js';
import type { A2AValidator } from './guards.js';
import type { FetchLike } from './http-types.js';
import type { Interceptors } from './interceptors.js';
import type { PeerLimits } from './peer-limits.js';
import type { ResponseInfo } from './response-info.js';
import type { RetryOptions } from './retry.js';
import type { Transport, TransportBinding, TransportRegistry } from './transports/types.js';
import type { V03Support } from './v0_3-loader.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout in ms (until the stream is open, for streams); `false` disables. Overrides the client's. */
  timeoutMs?: number | false;
  headers?: Record<string, string>;
  /**
   * Lineage to propagate: written to `message.metadata.ruvector.context` and, unless the call's
   * headers already carry one (say, from `createClientInterceptors` of `@a2aplane/a2a-otel`), to a
   * `traceparent` with a fresh span id.
   */
  context?: CallContext;
  /**
   * Called with what the agent said about the call besides its result (the extensions it activated),
   * once per call from the response the result came from; for a stream, when it is open (again after
   * each resume). A hook that throws fails the call with that error.
   */
  onResponse?: (info: ResponseInfo) => void;
}

export interface SubscribeOptions extends CallOptions {
  /** Resume after this event id (`Last-Event-ID`). */
  lastEventId?: string;
}

export interface ResumeOptions {
  /** Resubscribe attempts after a dropped stream before giving up. Default 3. */
  maxAttempts?: number;
}

export interface A2AClientOptions {
  /** The agent's card; or give `baseUrl` and the card is discovered on first use. */
  card?: AgentCard;
  baseUrl?: string;
  fetch?: FetchLike;
  headers?: Record<string, string>;
  /** Tenant sent with every call, unless the selected interface names one. */
  tenant?: string;
  /** Extension URIs to activate (`A2A-Extensions`). */
  extensions?: string[];
  /**
   * Timeout of each attempt of a unary call, until its whole response is read, and of opening a stream,
   * in ms. Default 10 000; `false` disables.
   */
  timeoutMs?: number | false;
  /** A stream that delivers no event for this long fails with `A2ATimeoutError`, in ms. Default 60 000; `false` disables. */
  streamIdleTimeoutMs?: number | false;
  retry?: RetryOptions;
  resume?: ResumeOptions;
  auth?: AuthProvider;
  /** Hooks around every call (`beforeCall` / `afterCall`) and every HTTP request (`beforeRequest` / `afterResponse`). */
  interceptors?: Interceptors | readonly Interceptors[];
  /**
   * Binding preference: interfaces are ranked by this list, then by card order. Default: the card's
   * `supportedInterfaces` order, among the bindings there is a transport for.
   */
  preferredBindings?: TransportBinding[];
  /**
   * Extra transport factories by binding name (such as `GRPC`), added to (or replacing) the built-in
   * `JSONRPC` and `HTTP+JSON` ones.
   */
  transports?: TransportRegistry;
  /**
   * Largest number of requests in flight to one origin from this client (unary calls until their
   * response is read, streams until they are open); more wait in line, under their timeout. Default 64;
   * `false` disables.
   */
  maxConcurrentPerOrigin?: number | false;
  /**
   * The per-origin circuit breaker: after `failureThreshold` (default 5) consecutive failed calls
   * (transport errors or timeouts, after retries) calls to that origin fail at once with
   * `CircuitOpenError` for `cooldownMs` (default 30 000), then one probe call decides. `false` disables.
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * '0.3' speaks v0.3 JSON-RPC (method names and shapes) to the card's 0.3 interfaces; it needs the
   * `v0_3` option. Default '1.0'.
   */
  protocolVersion?: '1.0' | '0.3';
  /**
   * v0.3 support (`v0_3` from `@a2aplane/a2a-client/v0_3`): required by `protocolVersion: '0.3'`, and
   * reads legacy cards with the strict a2a-types translator instead of the lenient normalizer.
   */
  v0_3?: V03Support;
  /**
   * How params, results and cards are checked. Default `structuralValidator` (small structural checks,
   * no zod); `strictValidator` from `@a2aplane/a2a-client/strict` parses everything with the
   * a2a-types schemas.
   */
  validator?: A2AValidator;
  /** Discovery verifies every signed card: see `CardResolverOptions` for these five. */
  trustedKeys?: readonly TrustedCardKey[];
  jkuPrefixes?: readonly string[];
  allowInsecureLoopback?: boolean;
  requireSignedCard?: boolean;
  cardVerifier?: CardVerifier;
  unsignedCardPolicy?: UnsignedCardPolicy;
  /** Share a resolver (and its cache) between clients. */
  cardResolver?: CardResolver;
  /** Largest SSE event accepted. Default 1 MiB. */
  maxEventBytes?: number;
}

export type Params<M extends A2AMethod> = A2ARequestMap[M];
export type Result<M extends A2AMethod> = A2AResultMap[M];

/** A client of one A2A agent: the eleven operations of spec §3.1. */
export interface A2AClient {
  /** The agent card in use (discovered and verified on first use when built from `baseUrl`). */
  getCard(options?: { signal?: AbortSignal }): Promise<AgentCard>;
  sendMessage(params: Params<'SendMessage'>, options?: CallOptions): Promise<Result<'SendMessage'>>;
  sendStreamingMessage(params: Params<'SendStreamingMessage'>, options?: CallOptions): AsyncIterable<StreamResponse>;
  getTask(params: Params<'GetTask'>, options?: CallOptions): Promise<Result<'GetTask'>>;
  listTasks(params?: Params<'ListTasks'>, options?: CallOptions): Promise<Result<'ListTasks'>>;
  cancelTask(params: Params<'CancelTask'>, options?: CallOptions): Promise<Result<'CancelTask'>>;
  subscribeToTask(params: Params<'SubscribeToTask'>, options?: SubscribeOptions): AsyncIterable<StreamResponse>;
  createTaskPushNotificationConfig(
    params: Params<'CreateTaskPushNotificationConfig'>,
    options?: CallOptions,
  ): Promise<Result<'CreateTaskPushNotificationConfig'>>;
  getTaskPushNotificationConfig(
    params: Params<'GetTaskPushNotificationConfig'>,
    options?: CallOptions,
  ): Promise<Result<'GetTaskPushNotificationConfig'>>;
  listTaskPushNotificationConfigs(
    params: Params<'ListTaskPushNotificationConfigs'>,
    options?: CallOptions,
  ): Promise<Result<'ListTaskPushNotificationConfigs'>>;
  deleteTaskPushNotificationConfig(
    params: Params<'DeleteTaskPushNotificationConfig'>,
    options?: CallOptions,
  ): Promise<Result<'DeleteTaskPushNotificationConfig'>>;
  getExtendedAgentCard(params?: Params<'GetExtendedAgentCard'>, options?: CallOptions): Promise<Result<'GetExtendedAgentCard'>>;
}

/** One of the card's interfaces, bound: its transport, tenant and the limits of its origin. */
export interface BoundTransport {
  transport: Transport;
  tenant: string | undefined;
  limits: PeerLimits;
}
