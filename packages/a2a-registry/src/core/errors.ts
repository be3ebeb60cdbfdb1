/** Is `value` an error of this package named one of `names` (works across duplicate installs)? */
function isNamed(value: unknown, names: readonly string[]): boolean {
  return value instanceof Error && typeof (value as { reason?: unknown }).reason === 'string' && names.includes(value.name);
}

const CONFLICT_NAMES = ['RegistryConflictError', 'RegistryStoreFullError'];
const ALL_NAMES = ['RegistryError', ...CONFLICT_NAMES, 'AgentNotFoundError', 'AgentStateError', 'RegistryRequestError'];

/** Base of the registry's local errors (never wire errors of the A2A protocol). */
export class RegistryError extends Error {
  static readonly errorName: string = 'RegistryError';
  /** Machine-readable reason, stable across versions. */
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = (new.target as typeof RegistryError).errorName;
    this.reason = reason;
  }
  static isInstance(value: unknown): value is RegistryError {
    return isNamed(value, ALL_NAMES);
  }
}

/** A write lost a race with another writer (the record's revision moved), or would break a unique AgentID / card URL. */
export class RegistryConflictError extends RegistryError {
  static override readonly errorName: string = 'RegistryConflictError';
  constructor(id: string, message = `agent record ${id} was changed by another writer`) {
    super('CONFLICT', message);
  }
  static override isInstance(value: unknown): value is RegistryConflictError {
    return isNamed(value, CONFLICT_NAMES);
  }
}

/** No enrolled agent has this id or AgentID. */
export class AgentNotFoundError extends RegistryError {
  static override readonly errorName: string = 'AgentNotFoundError';
  constructor(id: string) {
    super('NOT_FOUND', `no enrolled agent ${id}`);
  }
  static override isInstance(value: unknown): value is AgentNotFoundError {
    return isNamed(value, ['AgentNotFoundError']);
  }
}

/** The operation does not fit the agent's state (e.g. enabling a revoked agent). */
export class AgentStateError extends RegistryError {
  static override readonly errorName: string = 'AgentStateError';
  constructor(message: string) {
    super('INVALID_STATE', message);
  }
  static override isInstance(value: unknown): value is AgentStateError {
    return isNamed(value, ['AgentStateError']);
  }
}

/** A registry answered an HTTP call with an error, or could not be reached (reader side). */
export class RegistryRequestError extends RegistryError {
  static override readonly errorName: string = 'RegistryRequestError';
  readonly status: number;
  constructor(status: number, reason: string, message: string, options?: { cause?: unknown }) {
    super(reason, message, options);
    this.status = status;
  }
  static override isInstance(value: unknown): value is RegistryRequestError {
    return isNamed(value, ['RegistryRequestError']);
  }
}
