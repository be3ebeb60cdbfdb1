/**
 * Errors raised by this SDK itself. They never cross the wire: A2A and control-plane errors sent by
 * a server arrive as the a2a-types classes (`A2AError` and its subclasses) instead.
 */

import { createErrorBrand, type ErrorBrand } from '@a2aplane/a2a-types';

const brand = (name: string): ErrorBrand => /*#__PURE__*/ createErrorBrand(`@a2aplane/a2a-client/${name}`);

const TRANSPORT = brand('A2ATransportError');
const TIMEOUT = brand('A2ATimeoutError');
const ABORT = brand('A2AAbortError');
const DISCOVERY = brand('AgentCardDiscoveryError');
const SIGNATURE = brand('CardSignatureInvalidError');
const SSE_TOO_LARGE = brand('SseEventTooLargeError');
const RESUME = brand('StreamResumeExhaustedError');
const CIRCUIT_OPEN = brand('CircuitOpenError');

export interface A2ATransportErrorOptions {
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Whether the same request may succeed when sent again (network failure, 5xx, 429). */
  retryable?: boolean;
  /** Delay the server asked for (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** The URL that failed. */
  url?: string;
  cause?: unknown;
}

/** A network failure, a bad status without an A2A error body, or a response that is not valid JSON-RPC/REST. */
export class A2ATransportError extends Error {
  declare readonly status: number | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;
  declare readonly url: string | undefined;

  constructor(message: string, options: A2ATransportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2ATransportError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.url = options.url;
    TRANSPORT.mark(this);
  }

  static isInstance(value: unknown): value is A2ATransportError {
    return TRANSPORT.is(value);
  }
}

/**
 * The circuit breaker of the interface's origin is open (too many consecutive transport failures or
 * timeouts): the call was not sent. An `A2ATransportError` (not retryable), so the client moves on to
 * the next interface.
 */
export class CircuitOpenError extends A2ATransportError {
  declare readonly origin: string;
  constructor(origin: string) {
    super(`Circuit open for ${origin}`, { retryable: false, url: origin });
    this.name = 'CircuitOpenError';
    this.origin = origin;
    CIRCUIT_OPEN.mark(this);
  }
  static override isInstance(value: unknown): value is CircuitOpenError {
    return CIRCUIT_OPEN.is(value);
  }
}

/** The call did not complete within its `timeoutMs`. */
export class A2ATimeoutError extends Error {
  declare readonly timeoutMs: number;
  constructor(timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`A2A request timed out after ${timeoutMs} ms`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2ATimeoutError';
    this.timeoutMs = timeoutMs;
    TIMEOUT.mark(this);
  }
  static isInstance(value: unknown): value is A2ATimeoutError {
    return TIMEOUT.is(value);
  }
}

/** The caller aborted the call through its `signal`. */
export class A2AAbortError extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super('A2A request was aborted', options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2AAbortError';
    ABORT.mark(this);
  }
  static isInstance(value: unknown): value is A2AAbortError {
    return ABORT.is(value);
  }
}

export type AgentCardDiscoveryFailure = 'not-found' | 'malformed' | 'http' | 'network' | 'no-compatible-interface';

/** No agent card could be obtained, or the card is not usable. */
export class AgentCardDiscoveryError extends Error {
  declare readonly kind: AgentCardDiscoveryFailure;
  declare readonly url: string;
  declare readonly status: number | undefined;
  /** Field violations, for a malformed card. */
  readonly violations: readonly { field: string; description: string }[];

  constructor(
    kind: AgentCardDiscoveryFailure,
    url: string,
    message: string,
    options: { status?: number; violations?: readonly { field: string; description: string }[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentCardDiscoveryError';
    this.kind = kind;
    this.url = url;
    this.status = options.status;
    this.violations = options.violations ?? [];
    DISCOVERY.mark(this);
  }
  static isInstance(value: unknown): value is AgentCardDiscoveryError {
    return DISCOVERY.is(value);
  }
}

/** Status values of a card verifier (structurally a2a-identity's `verifyAgentCard`). */
export type CardVerificationStatus =
  | 'valid'
  | 'tampered'
  | 'untrusted-key'
  | 'unsupported-algorithm'
  | 'no-signature'
  | 'malformed'
  | 'agent-id-mismatch';

export interface CardVerificationResult {
  status: CardVerificationStatus;
  [key: string]: unknown;
}

/** The agent card's signature did not verify, or an unsigned card was refused by policy. */
export class CardSignatureInvalidError extends Error {
  declare readonly status: CardVerificationStatus;
  declare readonly url: string;
  /** The verifier's full result. */
  declare readonly result: CardVerificationResult;
  constructor(url: string, result: CardVerificationResult) {
    super(`Agent card at ${url} was rejected: signature status "${result.status}"`);
    this.name = 'CardSignatureInvalidError';
    this.status = result.status;
    this.url = url;
    this.result = result;
    SIGNATURE.mark(this);
  }
  static isInstance(value: unknown): value is CardSignatureInvalidError {
    return SIGNATURE.is(value);
  }
}

/** A Server-Sent Event grew past `maxEventBytes`. */
export class SseEventTooLargeError extends Error {
  declare readonly maxEventBytes: number;
  constructor(maxEventBytes: number) {
    super(`Server-sent event exceeds ${maxEventBytes} bytes`);
    this.name = 'SseEventTooLargeError';
    this.maxEventBytes = maxEventBytes;
    SSE_TOO_LARGE.mark(this);
  }
  static isInstance(value: unknown): value is SseEventTooLargeError {
    return SSE_TOO_LARGE.is(value);
  }
}

/** A stream kept dropping before the task reached a terminal or interrupted state. */
export class StreamResumeExhaustedError extends Error {
  declare readonly taskId: string | undefined;
  declare readonly attempts: number;
  declare readonly lastEventId: string | undefined;
  constructor(options: { taskId?: string; attempts: number; lastEventId?: string; cause?: unknown }) {
    super(
      `Stream for task ${options.taskId ?? '(unknown)'} dropped; gave up after ${options.attempts} resume attempts`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'StreamResumeExhaustedError';
    this.taskId = options.taskId;
    this.attempts = options.attempts;
    this.lastEventId = options.lastEventId;
    RESUME.mark(this);
  }
  static isInstance(value: unknown): value is StreamResumeExhaustedError {
    return RESUME.is(value);
  }
}
