import {
  BytesSchema,
  fromProtoJson,
  type Message,
  type ProtoMessageName,
  protoFieldNames,
  parseWith,
  RoleSchema,
  SendMessageConfigurationSchema,
  type SendMessageRequest,
  StructSchema,
  type Task,
  type TaskArtifactUpdateEvent,
  TaskStateSchema,
  type TaskStatusUpdateEvent,
  TimestampSchema,
} from '@a2aplane/a2a-types';

/**
 * Fast validation of the events an executor publishes (every event of every task goes through
 * it) and of SendMessage params. The objects, arrays, strings and enums of the v1.0 model are checked and copied here, in
 * the schemas' field order and with unknown fields dropped, exactly as `parseWith(Schema, value)`
 * would; leaves with their own rules (timestamps, bytes, structs) go to their zod schemas. When a
 * value does not pass, the caller falls back to the full zod parse, which decides (and words the
 * violation): this code can only say "valid, here is the copy" or "ask zod". Input that uses a
 * proto field name (`message_id`, ProtoJSON) is declined too, so zod's path renames it; each object
 * looks up only the proto names its message declares (no walk over the input's keys).
 * `test/event-validation.test.ts` keeps the field lists equal to the a2a-types schemas.
 */

/** "Not vouched for": let the zod schema decide. */
const ASK_ZOD: unique symbol = Symbol('ask zod');
type Check = (value: unknown) => unknown;

const string: Check = (value) => (typeof value === 'string' ? value : ASK_ZOD);
const id: Check = (value) => (typeof value === 'string' && value.length > 0 ? value : ASK_ZOD);
const boolean: Check = (value) => (typeof value === 'boolean' ? value : ASK_ZOD);
const unknownValue: Check = (value) => value;

function zodLeaf(schema: Parameters<typeof parseWith>[0]): Check {
  return (value) => {
    const parsed = parseWith(schema, value);
    return parsed.success ? parsed.data : ASK_ZOD;
  };
}

/** Timestamps repeat (one per millisecond at most from `toISOString`): remember the last valid one. */
let lastTimestamp = '';
const parseTimestamp = zodLeaf(TimestampSchema);
const timestamp: Check = (value) => {
  if (value === lastTimestamp) return value;
  const parsed = parseTimestamp(value);
  if (parsed !== ASK_ZOD) lastTimestamp = parsed as string;
  return parsed;
};

const struct = zodLeaf(StructSchema);
const bytes = zodLeaf(BytesSchema);

function oneOf(values: readonly string[]): Check {
  const allowed = new Set(values);
  return (value) => (typeof value === 'string' && allowed.has(value) ? value : ASK_ZOD);
}

function array(item: Check, nonEmpty: boolean): Check {
  return (value) => {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) return ASK_ZOD;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const parsed = item(value[i]);
      if (parsed === ASK_ZOD) return ASK_ZOD;
      out[i] = parsed;
    }
    return out;
  };
}

// The enums' values from the schemas themselves; *_UNSPECIFIED is left to zod, which refuses it with its own message.
const settableTaskState = oneOf(TaskStateSchema.options.filter((state) => state !== 'TASK_STATE_UNSPECIFIED'));
const settableRole = oneOf(RoleSchema.options.filter((role) => role !== 'ROLE_UNSPECIFIED'));

/** A field: its key, its check, and whether it may be absent. */
type FieldSpec = readonly [key: string, check: Check, optional: boolean];

function object(
  type: ProtoMessageName,
  fields: readonly FieldSpec[],
  refine?: (out: Record<string, unknown>) => boolean,
): Check & { keys: readonly string[] } {
  const keys = fields.map(([key]) => key);
  const checks = fields.map(([, check]) => check);
  const optional = fields.map(([, , isOptional]) => isOptional);
  const protoNames = protoFieldNames(type).map(([protoName]) => protoName);
  const check = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return ASK_ZOD;
    const input = value as Record<string, unknown>;
    for (let i = 0; i < protoNames.length; i++) if ((protoNames[i] as string) in input) return ASK_ZOD;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const raw = input[key];
      if (raw === undefined) {
        if (!optional[i]) return ASK_ZOD;
        // zod keeps a key that is present with the value undefined.
        if (key in input) out[key] = undefined;
        continue;
      }
      const parsed = (checks[i] as Check)(raw);
      if (parsed === ASK_ZOD) return ASK_ZOD;
      out[key] = parsed;
    }
    return refine === undefined || refine(out) ? out : ASK_ZOD;
  };
  return Object.assign(check, { keys });
}

const CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;

const part = object(
  'Part',
  [
    ['text', string, true],
    ['raw', bytes, true],
    ['url', string, true],
    ['data', unknownValue, true],
    ['metadata', struct, true],
    ['filename', string, true],
    ['mediaType', string, true],
  ],
  (out) => {
    let present = 0;
    for (const field of CONTENT_FIELDS) if (out[field] !== undefined) present += 1;
    return present === 1;
  },
);

const strings = array(string, false);

const message = object('Message', [
  ['messageId', id, false],
  ['contextId', string, true],
  ['taskId', string, true],
  ['role', settableRole, false],
  ['parts', array(part, true), false],
  ['metadata', struct, true],
  ['extensions', strings, true],
  ['referenceTaskIds', strings, true],
]);

const taskStatus = object('TaskStatus', [
  ['state', settableTaskState, false],
  ['message', message, true],
  ['timestamp', timestamp, true],
]);

const artifact = object('Artifact', [
  ['artifactId', id, false],
  ['name', string, true],
  ['description', string, true],
  ['parts', array(part, true), false],
  ['metadata', struct, true],
  ['extensions', strings, true],
]);

const task = object('Task', [
  ['id', id, false],
  ['contextId', string, true],
  ['status', taskStatus, false],
  ['artifacts', array(artifact, false), true],
  ['history', array(message, false), true],
  ['metadata', struct, true],
]);

const statusUpdate = object('TaskStatusUpdateEvent', [
  ['taskId', id, false],
  ['contextId', string, false],
  ['status', taskStatus, false],
  ['metadata', struct, true],
]);

const artifactUpdate = object('TaskArtifactUpdateEvent', [
  ['taskId', id, false],
  ['contextId', string, false],
  ['artifact', artifact, false],
  ['append', boolean, true],
  ['lastChunk', boolean, true],
  ['metadata', struct, true],
]);

/** The configuration goes to zod; with a proto field name anywhere in it, the whole request does. */
const parseConfiguration = zodLeaf(SendMessageConfigurationSchema);
const configuration: Check = (value) => {
  const renamed = fromProtoJson('SendMessageConfiguration', value);
  return renamed.success && renamed.data === value ? parseConfiguration(value) : ASK_ZOD;
};

/** Params of SendMessage / SendStreamingMessage: untrusted, but the same rules and the same fallback. */
const sendMessageRequest = object('SendMessageRequest', [
  ['tenant', string, true],
  ['message', message, false],
  ['configuration', configuration, true],
  ['metadata', struct, true],
]);

/** The field lists, for the test that keeps them equal to the a2a-types schemas. */
export const FAST_SHAPES = { part, message, taskStatus, artifact, task, statusUpdate, artifactUpdate, sendMessageRequest } as const;

const fast =
  <T>(check: Check) =>
  (value: unknown): T | undefined => {
    const parsed = check(value);
    return parsed === ASK_ZOD ? undefined : (parsed as T);
  };

/** Each resolves the parsed copy when the value is valid, or `undefined` when zod must decide. */
export const fastParseMessage = fast<Message>(message);
export const fastParseTask = fast<Task>(task);
export const fastParseStatusUpdate = fast<TaskStatusUpdateEvent>(statusUpdate);
export const fastParseArtifactUpdate = fast<TaskArtifactUpdateEvent>(artifactUpdate);
export const fastParseSendMessageRequest = fast<SendMessageRequest>(sendMessageRequest);
