import type { ProtoMessageName } from './proto-names.js';
import { renameProtoFields } from './proto-rename.js';
import { createValidationFailure, type FieldViolation, type ParseResult } from './validation.js';

export type { ProtoMessageName } from './proto-names.js';
export { protoFieldNames } from './proto-rename.js';

/**
 * ProtoJSON parsers accept a field under its JSON name (lowerCamelCase) or under its original
 * proto name (spec §5.5: `message_id` as well as `messageId`). Returns `value` with every proto
 * name of `type`'s fields, at any depth, renamed to the JSON name; `google.protobuf.Struct` and
 * `Value` fields (`metadata`, `data`, ...) and map keys are left as they are. A field sent under
 * both names is refused. Values without proto names come back as the same object (no copy).
 * Zod-free, for the structural guards as well as the schemas' parse helpers.
 */
export function fromProtoJson(type: ProtoMessageName, value: unknown, fieldPrefix = ''): ParseResult<unknown> {
  const violations: FieldViolation[] = [];
  const data = renameProtoFields(type, value, fieldPrefix, violations);
  return violations.length === 0 ? { success: true, data } : { success: false, error: createValidationFailure(violations) };
}
