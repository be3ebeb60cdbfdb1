import { canonicalBytes } from './jcs.js';

/**
 * How a field of the v1.0 proto behaves under spec §8.4.1 rule 1:
 * - `required`: always kept, whatever its value;
 * - `optional`: proto3 `optional` (explicit presence): kept whenever present, even at its default;
 * - `implicit`: no presence: omitted at its default (`""`, `false`, `0`, `[]`, `{}` for maps, `null`).
 * Messages (`AgentProvider`, `Struct`) have presence, so an implicit message field is kept when present.
 */
type Presence = 'required' | 'optional' | 'implicit';
interface FieldRule {
  presence: Presence;
  kind: 'scalar' | 'repeated' | 'map' | 'message';
  /** For messages, and for the elements of repeated / map fields that are messages. */
  message?: MessageRule;
}
type MessageRule = Record<string, FieldRule>;

const required = (kind: FieldRule['kind'] = 'scalar', message?: MessageRule): FieldRule => ({ presence: 'required', kind, message });
const optional: FieldRule = { presence: 'optional', kind: 'scalar' };
const implicit = (kind: FieldRule['kind'] = 'scalar', message?: MessageRule): FieldRule => ({ presence: 'implicit', kind, message });

const STRING_LIST: MessageRule = { list: implicit('repeated') };
const SECURITY_REQUIREMENT: MessageRule = { schemes: implicit('map', STRING_LIST) };
const AGENT_INTERFACE: MessageRule = {
  url: required(),
  protocolBinding: required(),
  tenant: implicit(),
  protocolVersion: required(),
};
const AGENT_PROVIDER: MessageRule = { url: required(), organization: required() };
const AGENT_EXTENSION: MessageRule = {
  uri: implicit(),
  description: implicit(),
  required: implicit(),
  // google.protobuf.Struct: a message (kept when present); its contents are data, never trimmed.
  params: implicit('message'),
};
const AGENT_CAPABILITIES: MessageRule = {
  streaming: optional,
  pushNotifications: optional,
  extensions: implicit('repeated', AGENT_EXTENSION),
  extendedAgentCard: optional,
};
const AGENT_SKILL: MessageRule = {
  id: required(),
  name: required(),
  description: required(),
  tags: required('repeated'),
  examples: implicit('repeated'),
  inputModes: implicit('repeated'),
  outputModes: implicit('repeated'),
  securityRequirements: implicit('repeated', SECURITY_REQUIREMENT),
};
const AGENT_CARD: MessageRule = {
  name: required(),
  description: required(),
  supportedInterfaces: required('repeated', AGENT_INTERFACE),
  provider: implicit('message', AGENT_PROVIDER),
  version: required(),
  documentationUrl: optional,
  capabilities: required('message', AGENT_CAPABILITIES),
  // SecurityScheme entries are kept as received (their oneof members are messages with presence).
  securitySchemes: implicit('map'),
  securityRequirements: implicit('repeated', SECURITY_REQUIREMENT),
  defaultInputModes: required('repeated'),
  defaultOutputModes: required('repeated'),
  skills: required('repeated', AGENT_SKILL),
  iconUrl: optional,
};

/**
 * The bytes an agent card signature covers (spec §8.4.1, §8.4.2 step 1): the card JSON with
 * `signatures` removed and default-valued non-required fields omitted, then JCS (RFC 8785).
 *
 * It runs on the JSON *as received* (`JSON.parse` output), not on a re-serialized model object:
 * members this library does not know (vendor keys, a newer spec's fields, the sample card's
 * `security`) are signed verbatim. Only camelCase (proto JSON) names get default removal.
 * `undefined` members are treated as absent, as `JSON.stringify` does.
 * Throws `TypeError` when `card` is not a JSON object or holds non-JSON values.
 */
export function canonicalCardPayload(card: unknown): Uint8Array {
  if (!isJsonObject(card)) throw new TypeError(`expected an agent card object, got ${describe(card)}`);
  const { signatures: _signatures, ...rest } = card;
  return canonicalBytes(trimMessage(rest, AGENT_CARD));
}

function trimMessage(input: Record<string, unknown>, rule: MessageRule | undefined): Record<string, unknown> {
  // Null prototype: a `__proto__` member stays an ordinary member.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(input)) {
    const value = input[key];
    if (value === undefined) continue;
    const field = rule && Object.hasOwn(rule, key) ? rule[key] : undefined;
    if (!field) {
      out[key] = stripUndefined(value);
      continue;
    }
    if (field.presence !== 'required') {
      if (value === null) continue; // proto JSON: null means "not set"
      if (field.presence === 'implicit' && isDefault(field, value)) continue;
    }
    out[key] = trimField(field, value);
  }
  return out;
}

function isDefault(field: FieldRule, value: unknown): boolean {
  switch (field.kind) {
    case 'scalar':
      return value === '' || value === false || value === 0;
    case 'repeated':
      return Array.isArray(value) && value.length === 0;
    case 'map':
      return isJsonObject(value) && Object.keys(value).every((k) => value[k] === undefined);
    default:
      return false;
  }
}

function trimField(field: FieldRule, value: unknown): unknown {
  const message = field.message;
  if (!message) return stripUndefined(value);
  if (field.kind === 'repeated' && Array.isArray(value)) {
    return value.map((item) => (isJsonObject(item) ? trimMessage(item, message) : stripUndefined(item)));
  }
  if (field.kind === 'map' && isJsonObject(value)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      out[key] = isJsonObject(item) ? trimMessage(item, message) : stripUndefined(item);
    }
    return out;
  }
  if (field.kind === 'message' && isJsonObject(value)) return trimMessage(value, message);
  return stripUndefined(value);
}

function stripUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (isJsonObject(value)) return trimMessage(value, undefined);
  return value;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
