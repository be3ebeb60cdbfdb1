import * as z from 'zod/mini';
import { BAD_REQUEST_TYPE } from './constants.js';

/** One invalid field, in the shape of `google.rpc.BadRequest.FieldViolation`. */
export interface FieldViolation {
  /** Path to the field, such as `message.parts[0].text`; empty for the value itself. */
  field: string;
  description: string;
}

/** `google.rpc.BadRequest` as a ProtoJSON `Any`, ready for an error's details. */
export interface BadRequestDetail {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: FieldViolation[];
}

/** Why a value did not parse: every violation found, not only the first. */
export interface ValidationFailure {
  readonly violations: readonly FieldViolation[];
  /** A one-line summary for logs and error messages. */
  readonly message: string;
  toBadRequest(): BadRequestDetail;
}

export type ParseResult<T> = { success: true; data: T } | { success: false; error: ValidationFailure };

/** Formats a zod issue path the way `google.rpc.BadRequest` names fields: `a.b[0].c`. */
export function formatFieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

export function createValidationFailure(violations: readonly FieldViolation[]): ValidationFailure {
  const frozen = Object.freeze([...violations]);
  return {
    violations: frozen,
    message: frozen.map((v) => (v.field ? `${v.field}: ${v.description}` : v.description)).join('; '),
    toBadRequest: () => ({ '@type': BAD_REQUEST_TYPE, fieldViolations: frozen.map((v) => ({ ...v })) }),
  };
}

/**
 * Parses untrusted input with a schema. Never throws on bad input: the failure lists every
 * violation with its field path. `fieldPrefix` roots the paths (`params` for JSON-RPC, say).
 * Unknown fields are dropped, so the result only holds fields of the model.
 */
export function parseWith<S extends z.core.$ZodType>(schema: S, input: unknown, fieldPrefix = ''): ParseResult<z.output<S>> {
  // The function form works for any zod 4 schema, classic or mini.
  const result = z.safeParse(schema, input);
  if (result.success) return { success: true, data: result.data };
  return {
    success: false,
    error: createValidationFailure(
      result.error.issues.map((issue) => ({
        field: formatFieldPath(issue.path, fieldPrefix),
        description: issue.message,
      })),
    ),
  };
}
