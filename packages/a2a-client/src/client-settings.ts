import { A2A_EXTENSIONS_HEADER, A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import { checkObject, checkTimeout, timeoutOf } from './checks.js';
import type { A2AClientOptions } from './client-types.js';
import { type A2AValidator, structuralValidator } from './guards.js';
import { lowerCaseHeaders } from './http.js';
import { composeInterceptors, type Interceptors } from './interceptors.js';
import { createPeerLimitsFor, DEFAULT_MAX_CONCURRENT_PER_ORIGIN, type PeerLimits } from './peer-limits.js';
import { type ResolvedRetryOptions, resolveRetryOptions } from './retry.js';
import { defaultTransports } from './transports/registry.js';
import type { TransportRegistry } from './transports/types.js';

/** Default timeout of a unary call (and of opening a stream), in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default longest silence on an open stream, in ms. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

/** A client's options, checked once, with their defaults filled in. */
export interface ClientSettings {
  protocolVersion: '1.0' | '0.3';
  v03: boolean;
  registry: TransportRegistry;
  limitsFor: (url: string) => PeerLimits;
  validator: A2AValidator;
  retry: ResolvedRetryOptions;
  maxResume: number;
  unaryTimeout: number | undefined;
  idleTimeout: number | undefined;
  interceptors: Interceptors | undefined;
  /** The user's headers, `A2A-Version` and `A2A-Extensions`, with lower-case names. */
  baseHeaders: Record<string, string>;
}

/** Checks `options` (wrong types throw `TypeError` / `RangeError`) and resolves the defaults. */
export function resolveClientSettings(options: A2AClientOptions): ClientSettings {
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
  const baseHeaders = lowerCaseHeaders(options.headers);
  baseHeaders[A2A_VERSION_HEADER.toLowerCase()] = v03 ? '0.3' : A2A_PROTOCOL_VERSION;
  if (options.extensions && options.extensions.length > 0) {
    // v0.3 named the extensions header X-A2A-Extensions.
    baseHeaders[(v03 ? 'X-A2A-Extensions' : A2A_EXTENSIONS_HEADER).toLowerCase()] = options.extensions.join(', ');
  }
  return {
    protocolVersion,
    v03,
    registry,
    limitsFor: createPeerLimitsFor({
      maxConcurrent: maxConcurrent === false ? undefined : maxConcurrent,
      breaker: options.circuitBreaker === false ? undefined : (options.circuitBreaker ?? {}),
    }),
    validator: options.validator ?? structuralValidator,
    retry: resolveRetryOptions(options.retry),
    maxResume: options.resume?.maxAttempts ?? 3,
    unaryTimeout: timeoutOf(options.timeoutMs, DEFAULT_TIMEOUT_MS),
    idleTimeout: timeoutOf(options.streamIdleTimeoutMs, DEFAULT_STREAM_IDLE_TIMEOUT_MS),
    interceptors: composeInterceptors(options.interceptors),
    baseHeaders,
  };
}
