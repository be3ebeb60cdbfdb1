import { type A2AError, type AgentCard, UnauthenticatedError } from '@a2aplane/a2a-types';
import type { Reply } from './exchange.js';

const challenges = new WeakMap<AgentCard, string>();

/** A quoted-string of RFC 9110 §5.6.4: printable ASCII only (a header value), quotes and backslashes escaped. */
const quoted = (value: string): string => `"${value.replace(/[^ -~]/g, '').replace(/["\\]/g, '\\$&')}"`;

/**
 * The `WWW-Authenticate` value for the card's schemes (RFC 9110 §11.6.1): `Bearer` for HTTP bearer,
 * OAuth 2 and OpenID Connect (RFC 6750 §3), `Basic` for HTTP basic (RFC 7617), and for an API key
 * (no registered scheme) `ApiKey` naming where the key goes. Made once per card.
 */
export function authChallengeOf(card: AgentCard): string {
  let value = challenges.get(card);
  if (value !== undefined) return value;
  const realm = `realm=${quoted(card.name)}`;
  const list = new Set<string>();
  for (const scheme of Object.values(card.securitySchemes ?? {})) {
    const http = scheme.httpAuthSecurityScheme?.scheme.toLowerCase();
    if (http === 'basic') list.add(`Basic ${realm}, charset="UTF-8"`);
    else if (http === 'bearer' || scheme.oauth2SecurityScheme || scheme.openIdConnectSecurityScheme) list.add(`Bearer ${realm}`);
    else if (scheme.apiKeySecurityScheme) {
      const { location, name } = scheme.apiKeySecurityScheme;
      list.add(`ApiKey ${realm}, in=${quoted(location.toLowerCase())}, name=${quoted(name)}`);
    }
  }
  // A 401 must carry a challenge (RFC 9110 §15.5.2): an agent that declares no scheme still names its realm.
  value = list.size > 0 ? [...list].join(', ') : `Bearer ${realm}`;
  challenges.set(card, value);
  return value;
}

/**
 * Missing or invalid credentials are refused at the HTTP layer on both HTTP bindings (spec §7.4,
 * the enterprise topic: `401 Unauthorized` with `WWW-Authenticate`): an `UNAUTHENTICATED` reply gets
 * status 401 and the card's challenge; the JSON-RPC body keeps its error object.
 */
export function withAuthChallenge(reply: Reply, error: A2AError, card: AgentCard): Reply {
  if (!UnauthenticatedError.isInstance(error) || reply.kind !== 'json') return reply;
  reply.status = 401;
  reply.headers = { ...reply.headers, 'www-authenticate': authChallengeOf(card) };
  return reply;
}
