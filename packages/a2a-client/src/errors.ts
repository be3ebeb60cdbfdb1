/**
 * Errors raised by this SDK itself. They never cross the wire: A2A and control-plane errors sent by
 * a server arrive as the a2a-types classes (`A2AError` and its subclasses) instead.
 */

import { createErrorBrand, type ErrorBrand } from '@a2aplane/a2a-types';

const brandOf = (name: string): ErrorBrand => createErrorBrand(`@a2aplane/a2a-client/${name}`);

/**
 * What the errors of this SDK share: message and cause, `name`, and the brand of every class from
 * the one constructed up to this one (a `CircuitOpenError` is an `A2ATransportError` too), so that
 * `X.isInstance(e)` holds across copies of the package. Each class names itself in `errorName`:
 * bundlers rename classes, so the constructor's own name cannot be used.
 */
abstract class ClientError extends Error {
  declare static readonly errorName: string;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    // `new.target` is typed as the abstract constructor; its static `errorName` is what we read.
    let Class = new.target as unknown as typeof ClientError;
    this.name = Class.errorName;
    for (; Class !== ClientError; Class = Object.getPrototypeOf(Class)) brandOf(Class.errorName).mark(this);
  }

  /** True when `value` is an error of this class (or a subclass), from any copy of this package. */
  static isInstance<T extends abstract new (...args: never[]) => Error>(this: T, value: unknown): value is InstanceType<T> {
    // `this` is typed by the generic `T` (for the narrowed return type); every subclass has `errorName`.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the check was called on.
    return brandOf((this as unknown as typeof ClientError).errorName).is(value);
  }
}

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
export class A2ATransportError extends ClientError {
  static override readonly errorName: string = 'A2ATransportError';
  declare readonly status: number | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;
  declare readonly url: string | undefined;

  constructor(message: string, options: A2ATransportErrorOptions = {}) {
    super(message, options.cause);
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.url = options.url;
  }
}

/**
 * The circuit breaker of the interface's origin is open (too many consecutive transport failures or
 * timeouts): the call was not sent. An `A2ATransportError` (not retryable), so the client moves on to
 * the next interface.
 */
export class CircuitOpenError extends A2ATransportError {
  static override readonly errorName: string = 'CircuitOpenError';
  declare readonly origin: string;
  constructor(origin: string) {
    super(`Circuit open for ${origin}`, { retryable: false, url: origin });
    this.origin = origin;
  }
}

/** The call did not complete within its `timeoutMs`. */
export class A2ATimeoutError extends ClientError {
  static override readonly errorName: string = 'A2ATimeoutError';
  declare readonly timeoutMs: number;
  constructor(timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`A2A request timed out after ${timeoutMs} ms`, options.cause);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted the call through its `signal`. */
export class A2AAbortError extends ClientError {
  static override readonly errorName: string = 'A2AAbortError';
  constructor(options: { cause?: unknown } = {}) {
    super('A2A request was aborted', options.cause);
  }
}

export type AgentCardDiscoveryFailure = 'not-found' | 'malformed' | 'http' | 'network' | 'no-compatible-interface';

/** No agent card could be obtained, or the card is not usable. */
export class AgentCardDiscoveryError extends ClientError {
  static override readonly errorName: string = 'AgentCardDiscoveryError';
  declare readonly kind: AgentCardDiscoveryFailure;
  declare readonly url: string;
  declare readonly status: number | undefined;
  /** Field violations, for a malformed card. */
  declare readonly violations: readonly { field: string; description: string }[];

  constructor(
    kind: AgentCardDiscoveryFailure,
    url: string,
    message: string,
    options: { status?: number; violations?: readonly { field: string; description: string }[]; cause?: unknown } = {},
  ) {
    super(message, options.cause);
    this.kind = kind;
    this.url = url;
    this.status = options.status;
    this.violations = options.violations ?? [];
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

/** What to do about each refusal: the fix is in the message, so a first run does not need the docs. */
const CARD_REFUSAL_HINTS: Partial<Record<CardVerificationStatus, string>> = {
  'untrusted-key':
    "no trusted key signed it: pin the agent's public key with `trustedKeys`, or serve its JWKS over https on the agent's origin (for an agent on loopback http in development, set `allowInsecureLoopback: true`)",
  'no-signature': 'the card is unsigned: pin a key the agent signs with, or choose `unsignedCardPolicy` deliberately',
  tampered: 'the card was changed after it was signed: do not trust this agent until its operator re-signs the card',
  'agent-id-mismatch': 'the AgentID the card declares is not the hash of the key that signed it',
  'unsupported-algorithm': 'the card is signed with an algorithm this client does not accept (EdDSA and ES256 are)',
};

/** The agent card's signature did not verify, or an unsigned card was refused by policy. */
export class CardSignatureInvalidError extends ClientError {
  static override readonly errorName: string = 'CardSignatureInvalidError';
  declare readonly status: CardVerificationStatus;
  declare readonly url: string;
  /** The verifier's full result. */
  declare readonly result: CardVerificationResult;
  constructor(url: string, result: CardVerificationResult) {
    const hint = CARD_REFUSAL_HINTS[result.status];
    super(`Agent card at ${url} was rejected: signature status "${result.status}"${hint === undefined ? '' : `: ${hint}`}`);
    this.status = result.status;
    this.url = url;
    this.result = result;
  }
}

/** A Server-Sent Event grew past `maxEventBytes`. */
export class SseEventTooLargeError extends ClientError {
  static override readonly errorName: string = 'SseEventTooLargeError';
  declare readonly maxEventBytes: number;
  constructor(maxEventBytes: number) {
    super(`Server-sent event exceeds ${maxEventBytes} bytes`);
    this.maxEventBytes = maxEventBytes;
  }
}

/** A stream kept dropping before the task reached a terminal or interrupted state. */
export class StreamResumeExhaustedError extends ClientError {
  static override readonly errorName: string = 'StreamResumeExhaustedError';
  declare readonly taskId: string | undefined;
  declare readonly attempts: number;
  declare readonly lastEventId: string | undefined;
  constructor(options: { taskId?: string; attempts: number; lastEventId?: string; cause?: unknown }) {
    super(`Stream for task ${options.taskId ?? '(unknown)'} dropped; gave up after ${options.attempts} resume attempts`, options.cause);
    this.taskId = options.taskId;
    this.attempts = options.attempts;
    this.lastEventId = options.lastEventId;
  }
}
