import {
  type A2AMethod,
  type A2AResultMap,
  type AgentCard,
  type FieldViolation,
  INTERRUPTED_TASK_STATES,
  OPERATION_MESSAGES,
  renameProtoFields,
  TERMINAL_TASK_STATES,
} from '@a2aplane/a2a-types';

/** The verdict of a validator: the value to use, or why it was refused. Validators never throw. */
export type Validation<T> = { ok: true; value: T } | { ok: false; message: string; violations: readonly FieldViolation[] };

/**
 * How the client checks what crosses its boundary. The default (`structuralValidator`) checks the
 * JSON-RPC result shapes the client and its callers rely on; `strictValidator` from
 * `@a2aplane/a2a-client/strict` runs the full a2a-types zod schemas instead.
 */
export interface A2AValidator {
  /** The caller's params; a failure becomes a `TypeError` before anything is sent. */
  params(method: A2AMethod, params: unknown): Validation<unknown>;
  /** A result (one stream item for the streaming operations); a failure becomes `InvalidAgentResponseError`. */
  result<M extends A2AMethod>(method: M, value: unknown): Validation<A2AResultMap[M]>;
  /** An agent card (after v0.3 normalization); a failure becomes `AgentCardDiscoveryError('malformed')`. */
  card(value: unknown): Validation<AgentCard>;
}

/**
 * Returns the first problem found, or `undefined` when the value fits. The problem's `field` is
 * relative to the value checked; each enclosing object or array puts its key in front on the way out,
 * so that a value that fits (every call) builds no path.
 */
type Check = (value: unknown) => FieldViolation | undefined;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const expected = (description: string): FieldViolation => ({ field: '', description: `expected ${description}` });
/** `problem` one level down, under `segment` (a key, or `[i]`). */
const under = (segment: string, { field, description }: FieldViolation): FieldViolation => ({
  field: field ? segment + (field[0] === '[' ? '' : '.') + field : segment,
  description,
});

const any: Check = () => undefined;
const string =
  (nonEmpty?: 1): Check =>
  (value) =>
    typeof value === 'string' && (!nonEmpty || value !== '') ? undefined : expected(nonEmpty ? 'a non-empty string' : 'a string');
const number: Check = (value) => (typeof value === 'number' && Number.isFinite(value) ? undefined : expected('a number'));
const boolean: Check = (value) => (typeof value === 'boolean' ? undefined : expected('a boolean'));
const struct: Check = (value) => (isObject(value) ? undefined : expected('an object'));
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined ? undefined : check(value);
const oneOf =
  (values: readonly string[]): Check =>
  (value) =>
    values.includes(value as string) ? undefined : expected(`one of ${values.join(', ')}`);
const array =
  (item: Check, nonEmpty?: 1): Check =>
  (value) => {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) return expected(nonEmpty ? 'a non-empty array' : 'an array');
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i]);
      if (problem) return under(`[${i}]`, problem);
    }
    return undefined;
  };
const object =
  (shape: Record<string, Check>): Check =>
  (value) => {
    if (!isObject(value)) return expected('an object');
    for (const key in shape) {
      const problem = (shape[key] as Check)(value[key]);
      if (problem) return under(key, problem);
    }
    return undefined;
  };
/** A proto `oneof` as JSON: exactly one of `shape`'s keys is set (other keys are checked by `rest`). */
const exactlyOne = (shape: Record<string, Check>, rest: Check = any): Check => {
  const keys = Object.keys(shape);
  const refusal = `exactly one of ${keys.join(', ')}`;
  return (value) => {
    if (!isObject(value)) return expected('an object');
    let present: string | undefined;
    for (const key of keys) {
      if (value[key] === undefined) continue;
      if (present !== undefined) return expected(refusal);
      present = key;
    }
    if (present === undefined) return expected(refusal);
    const problem = (shape[present] as Check)(value[present]);
    return problem ? under(present, problem) : rest(value);
  };
};

const TASK_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', ...TERMINAL_TASK_STATES, ...INTERRUPTED_TASK_STATES];
const optionalString = optional(string());
const id = string(1);

const part = exactlyOne({ text: string(), raw: string(), url: string(), data: any }, object({ metadata: optional(struct) }));
const message = object({
  messageId: id,
  role: oneOf(['ROLE_USER', 'ROLE_AGENT']),
  parts: array(part, 1),
  contextId: optionalString,
  taskId: optionalString,
  metadata: optional(struct),
});
const status = object({ state: oneOf(TASK_STATES), message: optional(message) });
const artifact = object({ artifactId: id, parts: array(part, 1), metadata: optional(struct) });
const task = object({
  id,
  contextId: optionalString,
  status,
  artifacts: optional(array(artifact)),
  history: optional(array(message)),
  metadata: optional(struct),
});
const streamResponse = exactlyOne({
  task,
  message,
  statusUpdate: object({ taskId: id, contextId: string(), status }),
  artifactUpdate: object({ taskId: id, contextId: string(), artifact, append: optional(boolean), lastChunk: optional(boolean) }),
});
const pushConfig = object({ url: string(1), id: optionalString, taskId: optionalString, tenant: optionalString });
const stringList = optional(array(string()));
const agentCard = object({
  name: string(),
  description: string(),
  version: string(),
  supportedInterfaces: array(object({ url: string(1), protocolBinding: string(1), protocolVersion: string(1), tenant: optionalString }), 1),
  capabilities: object({ extensions: optional(array(object({ uri: optionalString, params: optional(struct) }))) }),
  defaultInputModes: stringList,
  defaultOutputModes: stringList,
  skills: optional(array(object({ id, name: string(), description: string(), tags: stringList }))),
  signatures: optional(array(object({ protected: string(1), signature: string(1) }))),
});

const RESULTS: Record<A2AMethod, Check> = {
  SendMessage: exactlyOne({ task, message }),
  SendStreamingMessage: streamResponse,
  GetTask: task,
  ListTasks: object({
    tasks: optional(array(task)),
    nextPageToken: optionalString,
    pageSize: optional(number),
    totalSize: optional(number),
  }),
  CancelTask: task,
  SubscribeToTask: streamResponse,
  CreateTaskPushNotificationConfig: pushConfig,
  GetTaskPushNotificationConfig: pushConfig,
  ListTaskPushNotificationConfigs: object({ configs: optional(array(pushConfig)), nextPageToken: optionalString }),
  DeleteTaskPushNotificationConfig: struct,
  GetExtendedAgentCard: agentCard,
};

const sendParams = object({ message, tenant: optionalString, configuration: optional(struct), metadata: optional(struct) });
const byId = object({ id, tenant: optionalString });
const byTaskId = object({ taskId: id, tenant: optionalString });
const pushById = object({ taskId: id, id, tenant: optionalString });
const PARAMS: Record<A2AMethod, Check> = {
  SendMessage: sendParams,
  SendStreamingMessage: sendParams,
  GetTask: byId,
  ListTasks: object({ tenant: optionalString, contextId: optionalString, pageToken: optionalString }),
  CancelTask: byId,
  SubscribeToTask: byId,
  CreateTaskPushNotificationConfig: object({ taskId: id, url: string(1), tenant: optionalString }),
  GetTaskPushNotificationConfig: pushById,
  ListTaskPushNotificationConfigs: byTaskId,
  DeleteTaskPushNotificationConfig: pushById,
  GetExtendedAgentCard: object({ tenant: optionalString }),
};

// Struct and Value fields hold the caller's own keys; map fields have the caller's keys and message values.
const OPAQUE = new Set(['metadata', 'data', 'params', 'header', 'scopes']);
const MAPS = new Set(['securitySchemes', 'security_schemes', 'schemes']);

/** Whether `value` has a key that may be a proto field name (every one has a `_`; JSON names have none). */
function hasProtoNames(value: unknown, keysAreData = false): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasProtoNames(item)) return true;
    return false;
  }
  for (const key in value) {
    if (!keysAreData && key.includes('_')) return true;
    if (!OPAQUE.has(key) && hasProtoNames((value as Record<string, unknown>)[key], MAPS.has(key))) return true;
  }
  return false;
}

/** ProtoJSON: a peer may send proto field names (`message_id`); read them as the camelCase model. */
function camelCase(method: A2AMethod | undefined, value: unknown): Validation<unknown> {
  // Most peers send JSON names: one walk that finds no `_`, and the value is used as is.
  if (!hasProtoNames(value)) return { ok: true, value };
  const type = method ? OPERATION_MESSAGES[method]?.result : 'AgentCard';
  if (type === undefined) return { ok: true, value };
  const violations: FieldViolation[] = [];
  const data = renameProtoFields(type, value, '', violations);
  if (violations.length === 0) return { ok: true, value: data };
  return { ok: false, message: violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations };
}

function run<T>(check: Check | undefined, value: unknown): Validation<T> {
  // An unknown method has no check: refuse rather than pass it through unchecked.
  const problem = check ? check(value) : expected('a known A2A method');
  if (!problem) return { ok: true, value: value as T };
  const text = problem.field ? `${problem.field}: ${problem.description}` : problem.description;
  return { ok: false, message: text, violations: [problem] };
}

// ProtoJSON writers omit empty repeated fields and default scalars; fill them in as the schemas do.
function withDefaults(value: Record<string, unknown>, defaults: Record<string, () => unknown>): Record<string, unknown> {
  let out = value;
  for (const key in defaults) if (out[key] === undefined) out = { ...out, [key]: (defaults[key] as () => unknown)() };
  return out;
}
const emptyList = (): unknown[] => [];

/**
 * The default validator: small hand-written structural checks of the JSON-RPC and REST results
 * (discriminants, ids, states, parts, and every field the client reads), with the defaults of
 * ProtoJSON filled in and proto field names (`message_id`) read as camelCase. Unknown fields are
 * kept, not stripped. It never throws.
 */
export const structuralValidator: A2AValidator = {
  params: (method, params) => run(PARAMS[method], params),
  result<M extends A2AMethod>(method: M, raw: unknown): Validation<A2AResultMap[M]> {
    if (method === 'GetExtendedAgentCard') return structuralValidator.card(raw) as Validation<A2AResultMap[M]>;
    const renamed = method === 'DeleteTaskPushNotificationConfig' ? { ok: true as const, value: raw } : camelCase(method, raw);
    if (!renamed.ok) return renamed;
    const value = renamed.value;
    const checked = run<A2AResultMap[M]>(RESULTS[method], value);
    if (!checked.ok || method !== 'ListTasks') return checked;
    const list = withDefaults(value as Record<string, unknown>, {
      tasks: emptyList,
      nextPageToken: () => '',
      pageSize: () => 0,
      totalSize: () => 0,
    });
    return { ok: true, value: list as A2AResultMap[M] };
  },
  card(raw) {
    const renamed = camelCase(undefined, raw);
    if (!renamed.ok) return renamed;
    const value = renamed.value;
    const checked = run<AgentCard>(agentCard, value);
    if (!checked.ok) return checked;
    const card = withDefaults(value as Record<string, unknown>, {
      defaultInputModes: emptyList,
      defaultOutputModes: emptyList,
      skills: emptyList,
    });
    const skills = card.skills as Record<string, unknown>[];
    const filled = skills.some((skill) => skill.tags === undefined)
      ? { ...card, skills: skills.map((skill) => withDefaults(skill, { tags: emptyList })) }
      : card;
    // The structural check above is what makes this record an AgentCard; TypeScript cannot follow it.
    return { ok: true, value: filled as unknown as AgentCard };
  },
};
