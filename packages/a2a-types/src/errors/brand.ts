/** Marks the errors of one class so they are recognised across copies of the package that made them. */
export interface ErrorBrand {
  /** Marks `error` (call it in the class constructor). */
  mark(error: Error): void;
  /** True for an error marked with this brand, by any copy of the package (two installs, two bundles). */
  is(value: unknown): boolean;
}

/**
 * The one way our packages brand their errors: a non-enumerable property keyed by the global
 * symbol `Symbol.for(id)`, so `X.isInstance(e)` holds where `instanceof` would not (a second
 * install of the package, a bundle that inlined its own copy). `id` is `<package>/<ErrorName>`.
 */
export function createErrorBrand(id: string): ErrorBrand {
  const symbol = Symbol.for(id);
  return {
    mark(error) {
      Object.defineProperty(error, symbol, { value: true });
    },
    is(value) {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;
    },
  };
}

/** The brand of `A2AError` and every subclass. */
export const A2A_ERROR_BRAND = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-types/A2AError');
