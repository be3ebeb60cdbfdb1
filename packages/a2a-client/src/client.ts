import type { A2AMethod, SendMessageRequest, StreamResponse } from '@a2aplane/a2a-types';
import { invokeHooked, streamHooked } from './call-hooks.js';
import { checkObject, checkTimeout, timeoutOf } from './checks.js';
import { type ClientSettings, resolveClientSettings } from './client-settings.js';
import type { A2AClient, A2AClientOptions, BoundTransport, CallOptions, Params, Result, SubscribeOptions } from './client-types.js';
import { addTraceparent, withCallContext } from './context.js';
import { createDeadline } from './deadline.js';
import { invalidAgentResponse } from './error-responses.js';
import { A2AAbortError, A2ATimeoutError, A2ATransportError, CircuitOpenError } from './errors.js';
import { lowerCaseHeaders } from './http.js';
import { createInterfaceBinding, type InterfaceBinding } from './interface-binding.js';
import { loadStreaming } from './load-streaming.js';
import { type ResolvedRetryOptions, retryAfterFailure } from './retry.js';
import type { StreamHost } from './stream-calls.js';
import type { TransportCallOptions } from './transports/types.js';

export { DEFAULT_STREAM_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './client-settings.js';
export type { A2AClient, A2AClientOptions, CallOptions, ResumeOptions, SubscribeOptions } from './client-types.js';
export { selectInterfaces } from './select-interfaces.js';

type StreamMethod = 'SendStreamingMessage' | 'SubscribeToTask';

/**
 * Tries each bound interface in order; only transport failures move on to the next one. Each
 * interface's origin has a circuit breaker: an open one is skipped, and the outcome is recorded.
 */
async function withFallback<T>(
  binding: InterfaceBinding,
  retry: ResolvedRetryOptions,
  signal: AbortSignal | undefined,
  run: (bound: BoundTransport) => Promise<T>,
): Promise<T> {
  // Once bound, no promise hop for the list.
  const list = binding.bound ?? (await binding.bind(signal));
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
      binding.promote(bound);
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
}

/**
 * One attempt of a unary call under its deadline (the call's or client's timeout, the caller's
 * signal), holding an origin slot while it runs; names the failure: A2ATimeoutError when the timer
 * fired, A2AAbortError when the caller aborted. One async frame per attempt: it runs on every call.
 */
async function attempt(
  bound: BoundTransport,
  method: A2AMethod,
  params: Record<string, unknown>,
  callOptions: CallOptions,
  timeoutMs: number | undefined,
  options: (signal: AbortSignal | undefined) => TransportCallOptions,
): Promise<unknown> {
  const callerSignal = callOptions.signal;
  if (callerSignal?.aborted) throw new A2AAbortError({ cause: callerSignal.reason });
  // No timer: the caller's signal goes straight to the transport.
  const deadline = timeoutMs === undefined ? undefined : createDeadline(callerSignal, timeoutMs);
  const signal = deadline ? deadline.signal : callerSignal;
  const { limits } = bound;
  try {
    // Waiting for a slot counts against the timeout.
    const wait = limits.acquire(signal);
    if (wait) await wait;
    try {
      return await bound.transport.call(method, params, options(signal));
    } finally {
      limits.release();
    }
  } catch (error) {
    if (deadline) throw deadline.classify(error);
    throw callerSignal?.aborted ? createDeadline(callerSignal, undefined).classify(error) : error;
  } finally {
    deadline?.release();
  }
}

/** The options of one attempt; `signal` is the attempt's deadline signal, or the caller's. */
function transportOptionsFor(
  settings: ClientSettings,
  maxEventBytes: number | undefined,
): (callOptions: CallOptions, signal: AbortSignal | undefined, lastEventId?: string) => TransportCallOptions {
  const { baseHeaders } = settings;
  const defaults: TransportCallOptions = { headers: baseHeaders, ...(maxEventBytes !== undefined ? { maxEventBytes } : {}) };
  return (callOptions, signal, lastEventId) => {
    const { headers: callHeaders, context, onResponse } = callOptions;
    if (!callHeaders && !context && !signal && lastEventId === undefined && !onResponse) return defaults;
    let headers = baseHeaders;
    if (callHeaders || context) {
      headers = lowerCaseHeaders(callHeaders, { ...baseHeaders });
      if (context) addTraceparent(headers, callHeaders, context.traceId);
    }
    // Built field by field: this runs on every call, and spreads of conditional objects allocate.
    const out: TransportCallOptions = { headers };
    if (maxEventBytes !== undefined) out.maxEventBytes = maxEventBytes;
    if (signal) out.signal = signal;
    if (lastEventId !== undefined) out.lastEventId = lastEventId;
    if (onResponse) out.onResponse = onResponse;
    return out;
  };
}

/** Creates a client for one agent. Nothing is sent until the first call. */
export function createA2AClient(options: A2AClientOptions): A2AClient {
  const settings = resolveClientSettings(options);
  const { validator, retry, unaryTimeout, interceptors } = settings;
  const binding = createInterfaceBinding(options, settings);
  const transportOptions = transportOptionsFor(settings, options.maxEventBytes);
  const hooked = interceptors?.beforeCall !== undefined || interceptors?.afterCall !== undefined;

  const prepareParams = (method: A2AMethod, params: Record<string, unknown>, callOptions: CallOptions, bound: BoundTransport) => {
    let out = params;
    if ((method === 'SendMessage' || method === 'SendStreamingMessage') && callOptions.context) {
      // The params were checked as SendMessage params; the result is a record again.
      out = { ...withCallContext(params as SendMessageRequest, callOptions.context) };
    }
    if (bound.tenant !== undefined && out.tenant === undefined) out = { ...out, tenant: bound.tenant };
    return out;
  };

  const checkParams = (method: A2AMethod, params: unknown, callOptions: CallOptions): void => {
    checkObject('params', params);
    const checked = validator.params(method, params);
    if (!checked.ok) throw new TypeError(`expected valid ${method} params, got: ${checked.message}`);
    checkTimeout('timeoutMs', callOptions.timeoutMs);
  };

  const send = async <M extends A2AMethod>(method: M, params: Params<M>, callOptions: CallOptions): Promise<Result<M>> => {
    checkParams(method, params, callOptions);
    const timeoutMs = timeoutOf(callOptions.timeoutMs, unaryTimeout);
    const optionsFor = (signal: AbortSignal | undefined) => transportOptions(callOptions, signal);
    const raw = await withFallback(binding, retry, callOptions.signal, (bound) => {
      // The params object (and so the messageId) is built once per transport and reused by every retry.
      const prepared = prepareParams(method, params as Record<string, unknown>, callOptions, bound);
      return attempt(bound, method, prepared, callOptions, timeoutMs, optionsFor);
    });
    // The extended card is verified like the public one, over what the agent sent.
    if (method === 'GetExtendedAgentCard') await binding.verifyExtendedCard(raw);
    const checked = validator.result(method, raw);
    if (!checked.ok) throw invalidAgentResponse(`Invalid ${method} result: ${checked.message}`);
    return checked.value;
  };

  const invoke = <M extends A2AMethod>(method: M, params: Params<M>, callOptions: CallOptions = {}): Promise<Result<M>> => {
    if (!hooked) return send(method, params, callOptions);
    return invokeHooked(interceptors as NonNullable<typeof interceptors>, method, params, callOptions, (p, o) =>
      send(method, p as Params<M>, o),
    );
  };

  const host: StreamHost = {
    withFallback: (signal, run) => withFallback(binding, retry, signal, run),
    prepareParams,
    transportOptions,
    validator,
    send: (method, params, callOptions) => send(method, params, callOptions),
    unaryTimeout,
    idleTimeout: settings.idleTimeout,
    retry,
    maxResume: settings.maxResume,
  };

  async function* stream(method: StreamMethod, params: Record<string, unknown>, callOptions: SubscribeOptions) {
    checkParams(method, params, callOptions);
    const { streamWithResume } = await loadStreaming();
    yield* streamWithResume(host, method, params, callOptions);
  }

  async function* interceptedStream(
    method: StreamMethod,
    params: Record<string, unknown>,
    callOptions: SubscribeOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    if (!hooked) yield* stream(method, params, callOptions);
    else yield* streamHooked(interceptors as NonNullable<typeof interceptors>, method, params, callOptions, (p, o) => stream(method, p, o));
  }

  return {
    getCard: (o = {}) => binding.getCard(o.signal),
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
