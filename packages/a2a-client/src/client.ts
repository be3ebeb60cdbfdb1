import {
  A2A_EXTENSIONS_HEADER,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  isA2AError,
  isInterruptedTaskState,
  isTerminalTaskState,
  type CircuitBreakerOptions,
} from '@a2aplane/a2a-types/client-core';
import type { A2AMethod, A2ARequestMap, A2AResultMap, AgentCard, AgentInterface, StreamResponse } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import type { CallContext } from './context.js';
import { CardResolver, type CardVerifier, type TrustedCardKey, type UnsignedCardPolicy } from './discovery.js';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  AgentCardDiscoveryError,
  CircuitOpenError,
  StreamResumeExhaustedError,
} from './errors.js';
import { invalidAgentResponse } from './error-responses.js';
import { type A2AValidator, structuralValidator } from './guards.js';
import { type FetchLike, loadHooks, lowerCaseHeaders } from './http.js';
import type { CallHooks } from './hooks.js';
import { composeInterceptors, type Interceptors } from './interceptors.js';
import { backoffDelay, type ResolvedRetryOptions, type RetryOptions, resolveRetryOptions, retryAfterFailure, sleep } from './retry.js';
import { chunkLoader } from './chunk-loader.js';
import { createDeadline } from './deadline.js';
import { globalFetchFollows } from './fetch-follow.js';
import { createPeerLimitsFor, DEFAULT_MAX_CONCURRENT_PER_ORIGIN, type PeerLimits } from './peer-limits.js';
import { createJsonRpcTransport } from './transports/json-rpc.js';
import { defaultTransports } from './transports/registry.js';
import type {
  Transport,
  TransportBinding,
  TransportCallOptions,
  TransportContext,
  TransportFactory,
  TransportRegistry,
} from './transports/types.js';
import type { StreamContext } from './stream-calls.js';
import { loadV03Translators, type V03Support } from './v0_3-loader.js';

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

type Params<M extends A2AMethod> = A2ARequestMap[M];
type Result<M extends A2AMethod> = A2AResultMap[M];

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

/** Default timeout of a unary call (and of opening a stream), in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default longest silence on an open stream, in ms. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

type ContextCodec = typeof import('./call-context.js');
let contextCodec: ContextCodec | undefined;
/**
 * The lineage writer and traceparent, loaded by the first call with a `context` (calls without
 * one never load it). A failed load is a retryable transport failure; the next call tries again.
 */
const loadContextCodec = chunkLoader(() => import('./call-context.js').then((module) => (contextCodec = module)), 'call context writer');

/**
 * The streaming operations' loop, loaded by the first stream (unary-only pages never load it). A
 * failed load is a retryable transport failure (nothing was sent); the next stream tries again.
 */
const loadStreamCalls = chunkLoader(() => import('./stream-calls.js'), 'streaming code');

/** The client modules the stream loop uses (it imports nothing itself). */
const STREAM_KIT = {
  createDeadline,
  sleep,
  backoffDelay,
  isTerminalTaskState,
  isInterruptedTaskState,
  isA2AError,
  A2AAbortError,
  A2ATransportError,
  StreamResumeExhaustedError,
};

const majorMinor = (version: string): string => version.split('.').slice(0, 2).join('.');

export interface BoundTransport {
  transport: Transport;
  tenant: string | undefined;
  limits: PeerLimits;
  /**
   * A built-in HTTP transport sending through the global fetch with no auth or request interceptor:
   * its unary attempts may hand fetch a FollowerSignal (decisions 0053, 0056).
   */
  plainFetch: boolean;
}

/**
 * Orders the card's interfaces for this client (spec §8.3.2): the caller's binding preference when
 * given (bindings not listed are left out), then card order, which is the agent's preference. Only
 * bindings in `available` (default: the built-in `JSONRPC` and `HTTP+JSON`) and the protocol
 * version's major.minor are kept.
 */
export function selectInterfaces(
  card: AgentCard,
  options: { preferredBindings?: readonly TransportBinding[]; protocolVersion?: string; available?: readonly string[] } = {},
): AgentInterface[] {
  const preferred = options.preferredBindings;
  const available = options.available ?? Object.keys(defaultTransports);
  const version = majorMinor(options.protocolVersion ?? A2A_PROTOCOL_VERSION);
  return card.supportedInterfaces
    .filter(
      (i) =>
        available.includes(i.protocolBinding) &&
        (!preferred || preferred.includes(i.protocolBinding)) &&
        majorMinor(i.protocolVersion) === version,
    )
    .map((i, index) => ({ i, index, rank: preferred ? preferred.indexOf(i.protocolBinding) : 0 }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ i }) => i);
}

/** A timeout option: a positive number of ms, or `false` / `undefined`. */
function checkTimeout(name: string, value: unknown): void {
  if (value === undefined || value === false) return;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`expected ${name} to be a positive number of ms or false, got ${String(value)}`);
  }
}

const timeoutOf = (value: number | false | undefined, fallback: number | undefined): number | undefined =>
  value === false ? undefined : (value ?? fallback);

function checkObject(name: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`expected ${name} to be an object, got ${value === null ? 'null' : typeof value}`);
  }
}

/** Creates a client for one agent. Nothing is sent until the first call. */
export function createA2AClient(options: A2AClientOptions): A2AClient {
  checkObject('options', options);
  if (!options.card && !options.baseUrl) throw new TypeError('expected options.card or options.baseUrl, got neither');
  const protocolVersion = options.protocolVersion ?? '1.0';
  if (protocolVersion !== '1.0' && protocolVersion !== '0.3') {
    throw new RangeError(`expected protocolVersion '1.0' or '0.3', got ${String(protocolVersion)}`);
  }
  const v03 = protocolVersion === '0.3';
  if (v03 && typeof options.v0_3?.load !== 'function') {
    throw new TypeError("expected options.v0_3 with protocolVersion '0.3' (import { v0_3 } from '@a2aplane/a2a-client/v0_3'), got none");
  }
  checkTimeout('options.timeoutMs', options.timeoutMs);
  checkTimeout('options.streamIdleTimeoutMs', options.streamIdleTimeoutMs);
  const registry: TransportRegistry = options.transports ? { ...defaultTransports, ...options.transports } : defaultTransports;
  for (const name in registry) {
    if (typeof registry[name] !== 'function')
      throw new TypeError(`expected transports.${name} to be a factory function, got ${typeof registry[name]}`);
  }
  const maxConcurrent = options.maxConcurrentPerOrigin ?? DEFAULT_MAX_CONCURRENT_PER_ORIGIN;
  if (maxConcurrent !== false && !(Number.isInteger(maxConcurrent) && maxConcurrent >= 1)) {
    throw new RangeError(`expected options.maxConcurrentPerOrigin to be an integer >= 1 or false, got ${String(maxConcurrent)}`);
  }
  if (options.circuitBreaker !== undefined && options.circuitBreaker !== false)
    checkObject('options.circuitBreaker', options.circuitBreaker);
  const limitsFor = createPeerLimitsFor({
    maxConcurrent: maxConcurrent === false ? undefined : maxConcurrent,
    breaker: options.circuitBreaker === false ? undefined : (options.circuitBreaker ?? {}),
  });
  const validator = options.validator ?? structuralValidator;
  const retry: ResolvedRetryOptions = resolveRetryOptions(options.retry);
  const maxResume = options.resume?.maxAttempts ?? 3;
  const unaryTimeout = timeoutOf(options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const idleTimeout = timeoutOf(options.streamIdleTimeoutMs, DEFAULT_STREAM_IDLE_TIMEOUT_MS);
  const interceptors = composeInterceptors(options.interceptors);
  const beforeCall = interceptors?.beforeCall;
  const afterCall = interceptors?.afterCall;
  const callHooks = beforeCall !== undefined || afterCall !== undefined;
  const http: TransportContext = { fetch: options.fetch, auth: options.auth, interceptors };
  const resolver =
    options.cardResolver ??
    // Absent options stay undefined: the resolver reads undefined as not given.
    new CardResolver({
      fetch: options.fetch,
      headers: options.headers,
      timeoutMs: unaryTimeout,
      trustedKeys: options.trustedKeys,
      jkuPrefixes: options.jkuPrefixes,
      allowInsecureLoopback: options.allowInsecureLoopback,
      requireSignedCard: options.requireSignedCard,
      cardVerifier: options.cardVerifier,
      unsignedCardPolicy: options.unsignedCardPolicy,
      validator: options.validator,
      v0_3: options.v0_3,
    });

  let cardPromise: Promise<AgentCard> | undefined = options.card ? Promise.resolve(options.card) : undefined;
  let transports: BoundTransport[] | undefined;
  // The auth of a discovered agent: its provider's `forPeer`, told what discovery verified.
  let peerHttp: TransportContext = http;

  const getCard = async (signal?: AbortSignal): Promise<AgentCard> => {
    if (!cardPromise) {
      const baseUrl = options.baseUrl as string;
      cardPromise = resolver.resolve(baseUrl, signal ? { signal } : {}).then((d) => {
        const auth = options.auth?.forPeer?.({ card: d.card, verification: d.verification });
        if (auth !== undefined) peerHttp = { ...http, auth };
        return d.card;
      });
      // A failed discovery is retried on the next call rather than cached.
      cardPromise.catch(() => {
        cardPromise = undefined;
      });
    }
    return cardPromise;
  };

  const getTransports = async (signal?: AbortSignal): Promise<BoundTransport[]> => {
    if (transports) return transports;
    const card = await getCard(signal);
    // v0.3 mode speaks JSON-RPC only: the v0.3 REST paths differ from v1.0.
    const available = v03 ? ['JSONRPC'] : Object.keys(registry);
    const preferredBindings = options.preferredBindings;
    const selected = selectInterfaces(card, { protocolVersion, available, ...(preferredBindings ? { preferredBindings } : {}) });
    if (selected.length === 0) {
      throw new AgentCardDiscoveryError(
        'no-compatible-interface',
        options.baseUrl ?? card.supportedInterfaces[0]?.url ?? '',
        `Agent "${card.name}" has no ${(preferredBindings ?? available).join(' or ')} interface for protocol ${protocolVersion}`,
      );
    }
    const v03Operations = v03 ? (await loadV03Translators(options.v0_3 as V03Support)).V03_OPERATIONS : undefined;
    // As sendHttp decides whether a request goes through hooks.ts.
    const { fetch, auth, interceptors: hooks } = peerHttp;
    const plainFetch = !fetch && !auth && !hooks?.beforeRequest && !hooks?.afterResponse;
    transports = selected.map((i) => {
      const factory = registry[i.protocolBinding] as TransportFactory;
      return {
        transport: v03Operations ? createJsonRpcTransport(i.url, peerHttp, { v03: v03Operations }) : factory(i, peerHttp),
        // Proto3 JSON may serialize an unset tenant as "".
        tenant: i.tenant || options.tenant,
        limits: limitsFor(i.url),
        plainFetch: plainFetch && (v03Operations !== undefined || factory === defaultTransports[i.protocolBinding]),
      };
    });
    return transports;
  };

  // The transport that answered last goes first next time.
  const promote = (bound: BoundTransport): void => {
    if (!transports || transports[0] === bound) return;
    transports = [bound, ...transports.filter((t) => t !== bound)];
  };

  // Built once: the user's headers, A2A-Version and A2A-Extensions, with lower-case names.
  const baseHeaders = lowerCaseHeaders(options.headers);
  baseHeaders[A2A_VERSION_HEADER.toLowerCase()] = v03 ? '0.3' : A2A_PROTOCOL_VERSION;
  if (options.extensions && options.extensions.length > 0) {
    // v0.3 named the extensions header X-A2A-Extensions.
    baseHeaders[(v03 ? 'X-A2A-Extensions' : A2A_EXTENSIONS_HEADER).toLowerCase()] = options.extensions.join(', ');
  }
  const defaultTransportOptions: TransportCallOptions = {
    headers: baseHeaders,
    ...(options.maxEventBytes !== undefined ? { maxEventBytes: options.maxEventBytes } : {}),
  };

  // The options of one attempt; `signal` is the attempt's deadline signal, or the caller's.
  const transportOptions = (callOptions: CallOptions, signal: AbortSignal | undefined, lastEventId?: string): TransportCallOptions => {
    const { headers: callHeaders, context } = callOptions;
    if (!callHeaders && !context && !signal && lastEventId === undefined) return defaultTransportOptions;
    let headers = baseHeaders;
    if (callHeaders || context) {
      headers = lowerCaseHeaders(callHeaders, { ...baseHeaders });
      // `contextCodec` is loaded: a call with a context awaits it before its first attempt.
      if (context) (contextCodec as ContextCodec).addTraceparent(headers, callHeaders, context.traceId);
    }
    // Built field by field: this runs on every call, and spreads of conditional objects allocate.
    const out: TransportCallOptions = { headers };
    if (options.maxEventBytes !== undefined) out.maxEventBytes = options.maxEventBytes;
    if (signal) out.signal = signal;
    if (lastEventId !== undefined) out.lastEventId = lastEventId;
    return out;
  };

  /**
   * One attempt of a unary call under its deadline (the call's or client's timeout, the caller's
   * signal), holding an origin slot while it runs; names the failure: A2ATimeoutError when the timer
   * fired, A2AAbortError when the caller aborted. One async frame per attempt: it runs on every call.
   */
  const attempt = async (
    method: A2AMethod,
    params: Record<string, unknown>,
    callOptions: CallOptions,
    bound: BoundTransport,
  ): Promise<unknown> => {
    const callerSignal = callOptions.signal;
    if (callerSignal?.aborted) throw new A2AAbortError({ cause: callerSignal.reason });
    const timeoutMs = timeoutOf(callOptions.timeoutMs, unaryTimeout);
    // No timer: the caller's signal goes straight to the transport.
    const deadline = timeoutMs === undefined ? undefined : createDeadline(callerSignal, timeoutMs);
    // Node's global fetch follows a FollowerSignal for much less than an AbortController's signal;
    // any other fetch or transport gets the real signal (decisions 0053, 0056).
    const signal = deadline
      ? bound.plainFetch && globalFetchFollows()
        ? (deadline.follower() as unknown as AbortSignal)
        : deadline.signal
      : callerSignal;
    const { limits } = bound;
    try {
      // Waiting for a slot counts against the timeout.
      const wait = limits.acquire(signal);
      if (wait) await wait;
      try {
        return await bound.transport.call(method, params, transportOptions(callOptions, signal));
      } finally {
        limits.release();
      }
    } catch (error) {
      if (deadline) throw deadline.classify(error);
      throw callerSignal?.aborted ? createDeadline(callerSignal, undefined).classify(error) : error;
    } finally {
      deadline?.release();
    }
  };

  const prepareParams = <M extends A2AMethod>(method: M, params: Params<M>, callOptions: CallOptions, bound: BoundTransport) => {
    let out = params as Record<string, unknown>;
    if ((method === 'SendMessage' || method === 'SendStreamingMessage') && callOptions.context) {
      out = (contextCodec as ContextCodec).withTaskContext(params as Params<'SendMessage'>, callOptions.context) as unknown as Record<
        string,
        unknown
      >;
    }
    if (bound.tenant !== undefined && out.tenant === undefined) out = { ...out, tenant: bound.tenant };
    return out;
  };

  const checkParams = <M extends A2AMethod>(method: M, params: unknown): void => {
    checkObject('params', params);
    const checked = validator.params(method, params);
    if (!checked.ok) throw new TypeError(`expected valid ${method} params, got: ${checked.message}`);
  };

  /** The validator's `prepare` (the renamer loaded on demand); a module that cannot load is a retryable transport failure. */
  const prepare = (raw: unknown): Promise<void> | undefined =>
    validator.prepare?.(raw)?.catch((error: unknown) => {
      throw new A2ATransportError('Could not load the code to read this response', { cause: error, retryable: true });
    });

  /** `InvalidAgentResponseError` for a result the validator refused (its class loads on demand). */
  const invalidResult = (method: A2AMethod, message: string): Promise<Error> =>
    invalidAgentResponse(`Invalid ${method} result: ${message}`);

  // Tries each interface in order; only transport failures move on to the next one.
  const withFallback = async <T>(signal: AbortSignal | undefined, run: (bound: BoundTransport) => Promise<T>): Promise<T> => {
    // Once bound, no promise hop for the list.
    const list = transports ?? (await getTransports(signal));
    let lastError: unknown;
    for (const bound of list) {
      const { breaker } = bound.limits;
      if (breaker && !breaker.canRequest()) {
        lastError = new CircuitOpenError(bound.limits.origin);
        continue;
      }
      try {
        // The first attempt runs here, without a retry frame; the retries only after it failed.
        let result: T;
        try {
          result = await run(bound);
        } catch (error) {
          result = await retryAfterFailure(retry, signal, () => run(bound), error);
        }
        breaker?.recordSuccess();
        promote(bound);
        return result;
      } catch (error) {
        if (breaker) {
          // A peer that answers with an A2A error is up; an abort says nothing about it.
          if (A2ATransportError.isInstance(error) || A2ATimeoutError.isInstance(error)) breaker.recordFailure();
          else if (A2AAbortError.isInstance(error)) breaker.releaseProbe();
          else breaker.recordSuccess();
        }
        if (!A2ATransportError.isInstance(error)) throw error;
        lastError = error;
      }
    }
    throw lastError;
  };

  const send = async <M extends A2AMethod>(method: M, params: Params<M>, callOptions: CallOptions): Promise<Result<M>> => {
    checkParams(method, params);
    checkTimeout('timeoutMs', callOptions.timeoutMs);
    if (callOptions.context && !contextCodec) await loadContextCodec();
    const raw = await withFallback(callOptions.signal, (bound) => {
      // The params object (and so the messageId) is built once per transport and reused by every retry.
      const prepared = prepareParams(method, params, callOptions, bound);
      return attempt(method, prepared, callOptions, bound);
    });
    const pending = prepare(raw);
    if (pending) await pending;
    const checked = validator.result(method, raw);
    if (!checked.ok) throw await invalidResult(method, checked.message);
    return checked.value;
  };

  // `beforeCall` / `afterCall` run in `hooks.ts`, loaded by the first call of a client that has them.
  const callHookKit: CallHooks = { beforeCall, afterCall, checkObject };

  const invoke = async <M extends A2AMethod>(method: M, params: Params<M>, callOptions: CallOptions = {}): Promise<Result<M>> => {
    if (!callHooks) return send(method, params, callOptions);
    return (await loadHooks()).invokeHooked(callHookKit, method, params, callOptions, (p, o) => send(method, p as Params<M>, o));
  };

  async function* interceptedStream(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    params: Record<string, unknown>,
    callOptions: SubscribeOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    if (!callHooks) {
      yield* streamWithResume(method, params, callOptions);
      return;
    }
    yield* (await loadHooks()).streamHooked(callHookKit, method, params, callOptions, (p, o) => streamWithResume(method, p, o));
  }

  /** The client's part of a stream: the calls the stream code (a chunk loaded by the first stream) makes. */
  let streamContext: StreamContext | undefined;

  async function* streamWithResume(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    params: Record<string, unknown>,
    callOptions: SubscribeOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    checkParams(method, params);
    checkTimeout('timeoutMs', callOptions.timeoutMs);
    if (callOptions.context && !contextCodec) await loadContextCodec();
    const streams = await loadStreamCalls();
    streamContext ??= {
      ...STREAM_KIT,
      withFallback,
      prepareParams,
      transportOptions,
      prepare,
      validator,
      invalidResult,
      send,
      unaryTimeout,
      idleTimeout,
      retry,
      maxResume,
    };
    yield* streams.streamWithResume(streamContext, method, params, callOptions);
  }

  return {
    getCard: (o = {}) => getCard(o.signal),
    sendMessage: (params, o) => invoke('SendMessage', params, o),
    sendStreamingMessage: (params, o = {}) => interceptedStream('SendStreamingMessage', params as Record<string, unknown>, o),
    getTask: (params, o) => invoke('GetTask', params, o),
    listTasks: (params = {}, o) => invoke('ListTasks', params, o),
    cancelTask: (params, o) => invoke('CancelTask', params, o),
    subscribeToTask: (params, o = {}) => interceptedStream('SubscribeToTask', params as Record<string, unknown>, o),
    createTaskPushNotificationConfig: (params, o) => invoke('CreateTaskPushNotificationConfig', params, o),
    getTaskPushNotificationConfig: (params, o) => invoke('GetTaskPushNotificationConfig', params, o),
    listTaskPushNotificationConfigs: (params, o) => invoke('ListTaskPushNotificationConfigs', params, o),
    deleteTaskPushNotificationConfig: (params, o) => invoke('DeleteTaskPushNotificationConfig', params, o),
    getExtendedAgentCard: (params = {}, o) => invoke('GetExtendedAgentCard', params, o),
  };
}
