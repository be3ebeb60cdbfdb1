import { PROTOCOL_BINDING } from '../constants.js';
import type { AgentCard, AgentExtension, AgentInterface, AgentSkill } from '../model/agent-card.js';
import type { OAuthFlows, SecurityRequirement, SecurityScheme } from '../model/security.js';
import { withOptional } from './optional.js';
import type {
  V03AgentCard,
  V03AgentExtension,
  V03AgentInterface,
  V03AgentSkill,
  V03OAuthFlows,
  V03SecurityRequirement,
  V03SecurityScheme,
} from './schemas.js';

/** `protocolVersion` a translated v0.3 card declares. */
export const V0_3_CARD_PROTOCOL_VERSION = '0.3.0';

/** `0.3.0` -> `0.3`: v1.0 interfaces carry `Major.Minor` (spec §3.6). */
const majorMinor = (version: string): string => /^(\d+\.\d+)(?:\.\d+)?$/.exec(version)?.[1] ?? version;

export function securityRequirementFromV03(requirement: V03SecurityRequirement): SecurityRequirement {
  return { schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }])) };
}

export function securityRequirementToV03(requirement: SecurityRequirement): V03SecurityRequirement {
  return Object.fromEntries(Object.entries(requirement.schemes ?? {}).map(([name, scopes]) => [name, scopes.list ?? []]));
}

/** Lossy: v0.3 allows several flows per scheme, v1.0 exactly one; the first present one is kept. */
function flowsFromV03(flows: V03OAuthFlows): OAuthFlows {
  if (flows.authorizationCode) return { authorizationCode: flows.authorizationCode };
  if (flows.clientCredentials) return { clientCredentials: flows.clientCredentials };
  if (flows.implicit) return { implicit: flows.implicit };
  if (flows.password) return { password: flows.password };
  // No flow at all: v1.0 validation reports the empty oneof.
  return {} as OAuthFlows;
}

/** Lossy: `pkceRequired` is dropped and a device-code flow has no v0.3 form (`flows` is `{}`). */
function flowsToV03(flows: OAuthFlows): V03OAuthFlows {
  if (flows.authorizationCode) {
    const { pkceRequired: _pkce, ...flow } = flows.authorizationCode;
    return { authorizationCode: flow };
  }
  if (flows.clientCredentials) return { clientCredentials: flows.clientCredentials };
  if (flows.implicit) {
    const { authorizationUrl = '', scopes = {}, refreshUrl } = flows.implicit;
    return { implicit: withOptional({ authorizationUrl, scopes }, { refreshUrl }) };
  }
  if (flows.password) {
    const { tokenUrl = '', scopes = {}, refreshUrl } = flows.password;
    return { password: withOptional({ tokenUrl, scopes }, { refreshUrl }) };
  }
  return {};
}

export function securitySchemeFromV03(scheme: V03SecurityScheme): SecurityScheme {
  const description = { description: scheme.description };
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: withOptional({ location: scheme.in, name: scheme.name }, description) };
    case 'http':
      return {
        httpAuthSecurityScheme: withOptional({ scheme: scheme.scheme }, { ...description, bearerFormat: scheme.bearerFormat }),
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: withOptional(
          { flows: flowsFromV03(scheme.flows) },
          { ...description, oauth2MetadataUrl: scheme.oauth2MetadataUrl },
        ),
      };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: withOptional({ openIdConnectUrl: scheme.openIdConnectUrl }, description) };
    case 'mutualTLS':
      return { mtlsSecurityScheme: withOptional({}, description) };
  }
}

/** Lossy: an API key `location` outside `cookie`/`header`/`query` becomes `header`. */
export function securitySchemeToV03(scheme: SecurityScheme): V03SecurityScheme {
  if (scheme.apiKeySecurityScheme) {
    const { location, name, description } = scheme.apiKeySecurityScheme;
    const where = location === 'cookie' || location === 'query' ? location : 'header';
    return withOptional({ type: 'apiKey' as const, in: where, name }, { description });
  }
  if (scheme.httpAuthSecurityScheme) {
    const { scheme: httpScheme, bearerFormat, description } = scheme.httpAuthSecurityScheme;
    return withOptional({ type: 'http' as const, scheme: httpScheme }, { bearerFormat, description });
  }
  if (scheme.oauth2SecurityScheme) {
    const { flows, oauth2MetadataUrl, description } = scheme.oauth2SecurityScheme;
    return withOptional({ type: 'oauth2' as const, flows: flowsToV03(flows) }, { oauth2MetadataUrl, description });
  }
  if (scheme.openIdConnectSecurityScheme) {
    const { openIdConnectUrl, description } = scheme.openIdConnectSecurityScheme;
    return withOptional({ type: 'openIdConnect' as const, openIdConnectUrl }, { description });
  }
  return withOptional({ type: 'mutualTLS' as const }, { description: scheme.mtlsSecurityScheme?.description });
}

const mapValues = <A, B>(record: Record<string, A> | undefined, fn: (value: A) => B): Record<string, B> | undefined =>
  record && Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));

function extensionFromV03(extension: V03AgentExtension): AgentExtension {
  return withOptional(
    { uri: extension.uri },
    { description: extension.description, required: extension.required, params: extension.params },
  );
}

function extensionToV03(extension: AgentExtension): V03AgentExtension {
  return withOptional(
    { uri: extension.uri ?? '' },
    { description: extension.description, required: extension.required, params: extension.params },
  );
}

function skillFromV03(skill: V03AgentSkill): AgentSkill {
  return withOptional(
    { id: skill.id, name: skill.name, description: skill.description, tags: skill.tags },
    {
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
      securityRequirements: skill.security?.map(securityRequirementFromV03),
    },
  );
}

function skillToV03(skill: AgentSkill): V03AgentSkill {
  return withOptional(
    { id: skill.id, name: skill.name, description: skill.description, tags: skill.tags },
    {
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
      security: skill.securityRequirements?.map(securityRequirementToV03),
    },
  );
}

/**
 * v0.3 card -> v1.0 card. The main `url` with `preferredTransport` (default JSONRPC) becomes the first
 * `supportedInterfaces` entry, followed by `additionalInterfaces` not equal to it; every interface
 * gets the card's `protocolVersion` as `Major.Minor`. Lossy: `stateTransitionHistory` and
 * `signatures` are dropped (a signature covers the v0.3 JSON and cannot verify the translation).
 */
export function agentCardFromV03Value(card: V03AgentCard): AgentCard {
  const protocolVersion = majorMinor(card.protocolVersion);
  const main: V03AgentInterface = { url: card.url, transport: card.preferredTransport ?? PROTOCOL_BINDING.jsonRpc };
  const interfaces = [main];
  for (const extra of card.additionalInterfaces ?? []) {
    if (!interfaces.some((known) => known.url === extra.url && known.transport === extra.transport)) interfaces.push(extra);
  }
  const capabilities = withOptional(
    {},
    {
      streaming: card.capabilities.streaming,
      pushNotifications: card.capabilities.pushNotifications,
      extensions: card.capabilities.extensions?.map(extensionFromV03),
      extendedAgentCard: card.supportsAuthenticatedExtendedCard,
    },
  );
  return withOptional(
    {
      name: card.name,
      description: card.description,
      supportedInterfaces: interfaces.map(
        (entry): AgentInterface => ({ url: entry.url, protocolBinding: entry.transport, protocolVersion }),
      ),
      version: card.version,
      capabilities,
      defaultInputModes: card.defaultInputModes,
      defaultOutputModes: card.defaultOutputModes,
      skills: card.skills.map(skillFromV03),
    },
    {
      provider: card.provider,
      documentationUrl: card.documentationUrl,
      securitySchemes: mapValues(card.securitySchemes, securitySchemeFromV03),
      securityRequirements: card.security?.map(securityRequirementFromV03),
      iconUrl: card.iconUrl,
    },
  );
}

/**
 * v1.0 card -> v0.3 card, for `/.well-known/agent.json`. Interfaces declaring protocol version 0.3
 * are used when there are any, else all of them; the first is the main `url`/`preferredTransport`,
 * and when there are several they are all listed in `additionalInterfaces` (main first).
 * Lossy: interface `tenant`, `signatures`, `pkceRequired` and device-code flows.
 */
export function agentCardToV03(card: AgentCard): V03AgentCard {
  const legacy = card.supportedInterfaces.filter((entry) => majorMinor(entry.protocolVersion) === '0.3');
  const interfaces = (legacy.length > 0 ? legacy : card.supportedInterfaces).map(
    (entry): V03AgentInterface => ({ url: entry.url, transport: entry.protocolBinding }),
  );
  const main = interfaces[0] as V03AgentInterface;
  const capabilities = withOptional(
    {},
    {
      streaming: card.capabilities.streaming,
      pushNotifications: card.capabilities.pushNotifications,
      extensions: card.capabilities.extensions?.map(extensionToV03),
    },
  );
  return withOptional(
    {
      name: card.name,
      description: card.description,
      url: main.url,
      version: card.version,
      protocolVersion: V0_3_CARD_PROTOCOL_VERSION,
      preferredTransport: main.transport,
      capabilities,
      defaultInputModes: card.defaultInputModes,
      defaultOutputModes: card.defaultOutputModes,
      skills: card.skills.map(skillToV03),
    },
    {
      additionalInterfaces: interfaces.length > 1 ? interfaces : undefined,
      provider: card.provider,
      iconUrl: card.iconUrl,
      documentationUrl: card.documentationUrl,
      securitySchemes: mapValues(card.securitySchemes, securitySchemeToV03),
      security: card.securityRequirements?.map(securityRequirementToV03),
      supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard,
    },
  );
}
