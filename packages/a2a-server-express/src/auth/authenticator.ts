import { type SecurityScheme, UnauthenticatedError } from '@a2aplane/a2a-types';
import type { Authenticator, AuthenticatorOptions, AuthRequest, Principal } from './types.js';

type Kind = 'apiKey' | 'bearer' | 'basic' | 'oauth2' | 'openIdConnect' | 'mtls' | 'http-other';

interface CompiledScheme {
  name: string;
  kind: Kind;
  /** Returns the credential found in the request, or undefined when none is present. */
  extract(request: AuthRequest): string | undefined;
  verify(credential: string): Promise<Principal | undefined>;
}

/** Outcome of checking one scheme against one request. */
type SchemeResult = { state: 'absent' } | { state: 'invalid' } | { state: 'ok'; principal: Principal };

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index <= 0) continue;
    const name = pair.slice(0, index).trim();
    let value = pair.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // A malformed escape is kept verbatim: the verifier will reject it.
    }
    if (!cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/** The credentials of `Authorization: <scheme> <credentials>` when the scheme matches (case-insensitive, RFC 9110 §11.1). */
function authorizationCredentials(request: AuthRequest, scheme: string): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  if (space <= 0) return undefined;
  if (trimmed.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  return trimmed.slice(space + 1).trim();
}

function required<T>(value: T | undefined, schemeName: string, option: string): T {
  if (value === undefined) {
    throw new TypeError(`securitySchemes.${schemeName} needs options.${option}, got undefined`);
  }
  return value;
}

function compile(name: string, scheme: SecurityScheme, options: AuthenticatorOptions): CompiledScheme {
  if (scheme.apiKeySecurityScheme) {
    const { location, name: keyName } = scheme.apiKeySecurityScheme;
    const verifier = required(options.apiKey, name, 'apiKey');
    const where = location.toLowerCase();
    const extract =
      where === 'header'
        ? (request: AuthRequest) => request.headers[keyName.toLowerCase()]
        : where === 'query'
          ? (request: AuthRequest) => request.query.get(keyName) ?? undefined
          : where === 'cookie'
            ? (request: AuthRequest) => parseCookies(request.headers.cookie).get(keyName)
            : undefined;
    if (!extract) throw new RangeError(`securitySchemes.${name}.location: expected header, query or cookie, got ${location}`);
    return { name, kind: 'apiKey', extract, verify: async (key) => verifier.verify(key, name) };
  }
  if (scheme.httpAuthSecurityScheme) {
    const httpScheme = scheme.httpAuthSecurityScheme.scheme;
    const lower = httpScheme.toLowerCase();
    const extract = (request: AuthRequest) => authorizationCredentials(request, httpScheme);
    if (lower === 'bearer') {
      const verifier = required(options.bearer, name, 'bearer');
      return { name, kind: 'bearer', extract, verify: async (token) => verifier.verify(token, name) };
    }
    if (lower === 'basic') {
      const verifier = required(options.basic, name, 'basic');
      return {
        name,
        kind: 'basic',
        extract,
        verify: async (encoded) => {
          const decoded = Buffer.from(encoded, 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          if (colon < 0) return undefined;
          return verifier.verify(decoded.slice(0, colon), decoded.slice(colon + 1), name);
        },
      };
    }
    throw new RangeError(`securitySchemes.${name}: HTTP scheme ${httpScheme} is not supported (expected Bearer or Basic)`);
  }
  const bearer = (request: AuthRequest) => authorizationCredentials(request, 'Bearer');
  if (scheme.oauth2SecurityScheme) {
    const verifier = required(options.oauth2, name, 'oauth2');
    return { name, kind: 'oauth2', extract: bearer, verify: (token) => verifier.verifyToken(token, name) };
  }
  if (scheme.openIdConnectSecurityScheme) {
    const verifier = required(options.openIdConnect, name, 'openIdConnect');
    return { name, kind: 'openIdConnect', extract: bearer, verify: (token) => verifier.verifyToken(token, name) };
  }
  // Mutual TLS is settled by the TLS terminator, not by anything in the request this module sees.
  return { name, kind: 'mtls', extract: () => undefined, verify: async () => undefined };
}

/**
 * Builds an authenticator from the agent card's security declarations (spec §7.3-§7.4,
 * §4.5). Credentials are read where each scheme says; the verifiers decide who they belong to.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  if (typeof options !== 'object' || options === null || typeof options.securitySchemes !== 'object') {
    throw new TypeError('expected options with securitySchemes, got none');
  }
  const schemes = new Map<string, CompiledScheme>();
  for (const [name, scheme] of Object.entries(options.securitySchemes)) schemes.set(name, compile(name, scheme, options));

  // OR of ANDs; without explicit requirements any one declared scheme suffices.
  const requirements: string[][] = options.securityRequirements
    ? options.securityRequirements.map((requirement) => Object.keys(requirement.schemes ?? {}))
    : [...schemes.keys()].map((name) => [name]);
  for (const requirement of requirements) {
    for (const name of requirement) {
      if (!schemes.has(name)) throw new RangeError(`securityRequirements names ${name}, which securitySchemes does not declare`);
    }
  }
  // An empty requirement ({}) means "no authentication needed", as in OpenAPI.
  const anonymousAllowed = options.allowAnonymous === true || requirements.some((r) => r.length === 0);

  return async (request) => {
    const results = new Map<string, SchemeResult>();
    const check = async (name: string): Promise<SchemeResult> => {
      const cached = results.get(name);
      if (cached) return cached;
      const scheme = schemes.get(name) as CompiledScheme;
      const credential = scheme.extract(request);
      let result: SchemeResult;
      if (credential === undefined || credential === '') {
        result = { state: 'absent' };
      } else {
        const principal = await scheme.verify(credential);
        result = principal ? { state: 'ok', principal: { ...principal, scheme: name } } : { state: 'invalid' };
      }
      results.set(name, result);
      return result;
    };

    let sawCredentials = false;
    for (const requirement of requirements) {
      if (requirement.length === 0) continue;
      let principal: Principal | undefined;
      let satisfied = true;
      for (const name of requirement) {
        const result = await check(name);
        if (result.state !== 'absent') sawCredentials = true;
        // No early exit: a present-but-invalid credential later in the list must still be seen.
        if (result.state === 'ok') principal ??= result.principal;
        else satisfied = false;
      }
      if (satisfied && principal) return principal;
    }
    // Credentials that were checked and failed are never downgraded to anonymous access.
    for (const result of results.values()) {
      if (result.state === 'invalid') {
        throw new UnauthenticatedError({ message: 'The supplied credentials are not valid.' });
      }
    }
    if (!sawCredentials && anonymousAllowed) return undefined;
    throw new UnauthenticatedError({
      message: sawCredentials ? 'The supplied credentials do not satisfy any security requirement.' : 'Credentials are required.',
    });
  };
}
