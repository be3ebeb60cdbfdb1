import { A2AError, A2APLANE_ERROR_DOMAIN, type A2AErrorOptions, createErrorBrand, type ErrorCodeEntry } from '@a2aplane/a2a-types';

/**
 * The table entry of `NoEligiblePeerError`: a control-plane rejection (JSON-RPC -32000), HTTP 503
 * because another peer may qualify once a breaker closes or a card is refreshed.
 */
export const NO_ELIGIBLE_PEER_ERROR_ENTRY: ErrorCodeEntry = {
  reason: 'NO_ELIGIBLE_PEER',
  domain: A2APLANE_ERROR_DOMAIN,
  jsonRpcCode: -32000,
  httpStatus: 503,
  grpcStatus: 'UNAVAILABLE',
  message: 'No eligible peer',
  retryable: true,
};

/** Raised by the dispatcher when no peer qualifies for a task and no fallback executor is set. */
export class NoEligiblePeerError extends A2AError {
  static override readonly reason = 'NO_ELIGIBLE_PEER';
  constructor(options?: A2AErrorOptions) {
    super(NO_ELIGIBLE_PEER_ERROR_ENTRY, options);
    this.name = 'NoEligiblePeerError';
  }
}

/**
 * The table entry of `IncompatiblePeerError`: a control-plane refusal (JSON-RPC -32000), HTTP 502
 * because the upstream agent speaks nothing this one can use; not retryable until its card changes.
 */
export const INCOMPATIBLE_PEER_ERROR_ENTRY: ErrorCodeEntry = {
  reason: 'INCOMPATIBLE_PEER',
  domain: A2APLANE_ERROR_DOMAIN,
  jsonRpcCode: -32000,
  httpStatus: 502,
  grpcStatus: 'FAILED_PRECONDITION',
  message: 'Incompatible peer',
  retryable: false,
};

/** Raised on discovery when the pool's negotiator refuses a peer's card (e.g. no common artifact-kind version). */
export class IncompatiblePeerError extends A2AError {
  static override readonly reason = 'INCOMPATIBLE_PEER';
  constructor(options?: A2AErrorOptions) {
    super(INCOMPATIBLE_PEER_ERROR_ENTRY, options);
    this.name = 'IncompatiblePeerError';
  }
}

const UNKNOWN_SELECTOR_BRAND = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-routing/UnknownSelectorError');

/** A local startup error: a selector name that is not registered. Never crosses the wire. */
export class UnknownSelectorError extends Error {
  readonly selector: string;
  readonly known: readonly string[];

  constructor(selector: string, known: readonly string[]) {
    super(`unknown selector "${selector}"; known: ${known.length > 0 ? known.join(', ') : '(none registered)'}`);
    this.name = 'UnknownSelectorError';
    this.selector = selector;
    this.known = [...known];
    UNKNOWN_SELECTOR_BRAND.mark(this);
  }

  /** Works across duplicate installs of this package, unlike `instanceof`. */
  static isInstance(value: unknown): value is UnknownSelectorError {
    return UNKNOWN_SELECTOR_BRAND.is(value);
  }
}
