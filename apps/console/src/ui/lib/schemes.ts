/** A security scheme of the card the console can drive. */
export type ConsoleScheme =
  | { name: string; kind: 'apiKey'; location: 'header' | 'query'; param: string; description?: string }
  | { name: string; kind: 'bearer'; description?: string }
  | { name: string; kind: 'oauth2'; tokenUrl?: string; scopes: string[]; description?: string }
  | { name: string; kind: 'unsupported'; detail: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function withDescription<T extends object>(scheme: T, description: unknown): T & { description?: string } {
  return typeof description === 'string' ? { ...scheme, description } : scheme;
}

function apiKey(name: string, location: unknown, param: unknown, description: unknown): ConsoleScheme {
  const where = str(location)?.toLowerCase();
  if ((where !== 'header' && where !== 'query') || !str(param))
    return { name, kind: 'unsupported', detail: `API key in ${String(location)}` };
  return withDescription({ name, kind: 'apiKey' as const, location: where, param: param as string }, description);
}

function oauth2(name: string, flows: unknown, description: unknown): ConsoleScheme {
  const credentials = isObject(flows) ? flows.clientCredentials : undefined;
  if (!isObject(credentials)) return { name, kind: 'unsupported', detail: 'OAuth 2 without a client-credentials flow' };
  const scopes = isObject(credentials.scopes) ? Object.keys(credentials.scopes) : [];
  const tokenUrl = str(credentials.tokenUrl);
  return withDescription({ name, kind: 'oauth2' as const, scopes, ...(tokenUrl ? { tokenUrl } : {}) }, description);
}

/** One v1.0 scheme (`{ apiKeySecurityScheme: {...} }`) or v0.3 one (`{ type: 'apiKey', ... }`). */
function readScheme(name: string, value: Record<string, unknown>): ConsoleScheme {
  const v1 = (key: string) => (isObject(value[key]) ? (value[key] as Record<string, unknown>) : undefined);
  const key = v1('apiKeySecurityScheme');
  if (key) return apiKey(name, key.location, key.name, key.description);
  const http = v1('httpAuthSecurityScheme');
  if (http)
    return str(http.scheme)?.toLowerCase() === 'bearer'
      ? withDescription({ name, kind: 'bearer' as const }, http.description)
      : { name, kind: 'unsupported', detail: `HTTP ${String(http.scheme)}` };
  const oauth = v1('oauth2SecurityScheme');
  if (oauth) return oauth2(name, oauth.flows, oauth.description);
  if (v1('openIdConnectSecurityScheme'))
    return { name, kind: 'unsupported', detail: 'OpenID Connect (use its client-credentials token endpoint as OAuth 2)' };
  if (v1('mtlsSecurityScheme'))
    return { name, kind: 'unsupported', detail: 'mutual TLS (a browser cannot present a client certificate here)' };
  switch (str(value.type)) {
    case 'apiKey':
      return apiKey(name, value.in, value.name, value.description);
    case 'http':
      return str(value.scheme)?.toLowerCase() === 'bearer'
        ? withDescription({ name, kind: 'bearer' as const }, value.description)
        : { name, kind: 'unsupported', detail: `HTTP ${String(value.scheme)}` };
    case 'oauth2':
      return oauth2(name, value.flows, value.description);
    default:
      return { name, kind: 'unsupported', detail: `scheme type ${String(value.type ?? 'unknown')}` };
  }
}

/** The card's security schemes, from the v1.0 card or, for a v0.3 agent, its raw card. */
export function schemesOf(card: unknown, raw?: unknown): ConsoleScheme[] {
  const source =
    isObject(card) && isObject(card.securitySchemes)
      ? card.securitySchemes
      : isObject(raw) && isObject(raw.securitySchemes)
        ? raw.securitySchemes
        : undefined;
  if (!source) return [];
  return Object.entries(source).flatMap(([name, value]) => (isObject(value) ? [readScheme(name, value)] : []));
}
