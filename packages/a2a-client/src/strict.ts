import { type ParseResult, parseAgentCard, parseOperationParams, parseOperationResult } from '@a2aplane/a2a-types';
import type { A2AValidator, Validation } from './guards.js';

function toValidation<T>(parsed: ParseResult<T>): Validation<T> {
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, message: parsed.error.message, violations: parsed.error.violations };
}

/**
 * Full validation with the a2a-types zod schemas: every params object, result, stream item and
 * card is parsed against its schema (unknown fields dropped, proto field names read as camelCase). Opt in with
 * `createA2AClient({ ..., validator: strictValidator })`; it brings zod and the whole wire model
 * into the bundle, which the default structural checks avoid.
 */
export const strictValidator: A2AValidator = {
  params: (method, params) => toValidation(parseOperationParams(method, params)),
  result: (method, value) => toValidation(parseOperationResult(method, value)),
  card: (value) => toValidation(parseAgentCard(value)),
};

export type { A2AValidator, Validation } from './guards.js';
