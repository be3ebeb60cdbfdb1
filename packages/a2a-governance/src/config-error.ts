import { createErrorBrand } from '@a2aplane/a2a-types';

/** One problem in an operator config; `field` is a dotted path such as `budget.global.overflow`. */
export interface ConfigViolation {
  field: string;
  description: string;
}

const CONFIG_ERROR_BRAND = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-governance/ConfigError');

/**
 * An operator config that cannot be used. Thrown at startup, listing every violation. Prefer
 * `ConfigError.isInstance(e)` to `instanceof`: it also holds for an error from another install of the package.
 */
export class ConfigError extends Error {
  readonly violations: readonly ConfigViolation[];
  constructor(violations: readonly ConfigViolation[], message?: string) {
    super(
      message ?? `invalid operator config: ${violations.map((v) => (v.field ? `${v.field}: ${v.description}` : v.description)).join('; ')}`,
    );
    this.name = 'ConfigError';
    this.violations = Object.freeze([...violations]);
    CONFIG_ERROR_BRAND.mark(this);
  }

  /** True for a ConfigError from any copy of this package. */
  static isInstance(value: unknown): value is ConfigError {
    return CONFIG_ERROR_BRAND.is(value);
  }
}
