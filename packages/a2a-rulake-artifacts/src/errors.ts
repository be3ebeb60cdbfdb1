// Local SDK errors: they never cross the wire. Each carries a brand so `isInstance` and
// `instanceof` work across duplicate copies (two installs of the package).
import { createErrorBrand } from '@a2aplane/a2a-types';

const BRAND = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-rulake-artifacts/error');

abstract class BrandedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    BRAND.mark(this);
  }
}

function hasName(value: unknown, name: string): boolean {
  return BRAND.is(value) && (value as { name?: unknown }).name === name;
}

/** The grant does not include the capability the operation needs (ADR-159 r2 scoped grants). */
export class WitnessAccessDeniedError extends BrandedError {
  override readonly name = 'WitnessAccessDeniedError';
  readonly witness: string;
  readonly required: string;
  constructor(witness: string, required: string, options?: { cause?: unknown }) {
    super(`grant for witness ${witness} lacks the '${required}' capability`, options);
    this.witness = witness;
    this.required = required;
  }
  static isInstance(value: unknown): value is WitnessAccessDeniedError {
    return hasName(value, 'WitnessAccessDeniedError');
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasName(value, 'WitnessAccessDeniedError');
  }
}

/** The stored bytes do not hash to the witness: the payload was tampered with or corrupted. */
export class WitnessVerificationError extends BrandedError {
  override readonly name = 'WitnessVerificationError';
  readonly witness: string;
  readonly actual: string;
  constructor(witness: string, actual: string, options?: { cause?: unknown }) {
    super(`payload does not match witness ${witness} (got ${actual})`, options);
    this.witness = witness;
    this.actual = actual;
  }
  static isInstance(value: unknown): value is WitnessVerificationError {
    return hasName(value, 'WitnessVerificationError');
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasName(value, 'WitnessVerificationError');
  }
}

/** No payload is stored under the witness, or the witness is malformed. */
export class WitnessNotFoundError extends BrandedError {
  override readonly name = 'WitnessNotFoundError';
  readonly witness: string;
  constructor(witness: string, options?: { cause?: unknown }) {
    super(`no payload stored for witness ${JSON.stringify(witness).slice(0, 80)}`, options);
    this.witness = witness;
  }
  static isInstance(value: unknown): value is WitnessNotFoundError {
    return hasName(value, 'WitnessNotFoundError');
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasName(value, 'WitnessNotFoundError');
  }
}

export type VectorCodecErrorCode =
  | 'bad-magic'
  | 'unsupported-version'
  | 'bad-header'
  | 'truncated'
  | 'bad-block'
  | 'count-mismatch'
  | 'trailing-bytes';

/** Encoded vector bytes are malformed. */
export class VectorCodecError extends BrandedError {
  override readonly name = 'VectorCodecError';
  readonly code: VectorCodecErrorCode;
  constructor(code: VectorCodecErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
  static isInstance(value: unknown): value is VectorCodecError {
    return hasName(value, 'VectorCodecError');
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasName(value, 'VectorCodecError');
  }
}

export type HandOffErrorReason = 'not-a-witness-artifact';

/** An artifact offered as a memory hand-off is not a readable RuLakeWitness artifact. */
export class HandOffError extends BrandedError {
  override readonly name = 'HandOffError';
  readonly reason: HandOffErrorReason;
  readonly note: string | undefined;
  constructor(reason: HandOffErrorReason, message: string, note?: string) {
    super(message);
    this.reason = reason;
    this.note = note;
  }
  static isInstance(value: unknown): value is HandOffError {
    return hasName(value, 'HandOffError');
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasName(value, 'HandOffError');
  }
}
