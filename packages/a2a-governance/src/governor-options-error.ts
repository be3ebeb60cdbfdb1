import { createErrorBrand } from '@a2aplane/a2a-types';

const GOVERNOR_OPTIONS_ERROR_BRAND = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-governance/GovernorOptionsError');

/**
 * Governor options that cannot work together, thrown by `createGovernor` at start; `field` names
 * the option to add. A `TypeError`, as the governor's other option checks. Its own class, not
 * `ConfigError` (the operator config's), so a governor does not bundle the config schemas.
 */
export class GovernorOptionsError extends TypeError {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'GovernorOptionsError';
    this.field = field;
    GOVERNOR_OPTIONS_ERROR_BRAND.mark(this);
  }

  /** True for a GovernorOptionsError from any copy of this package. */
  static isInstance(value: unknown): value is GovernorOptionsError {
    return GOVERNOR_OPTIONS_ERROR_BRAND.is(value);
  }
}
