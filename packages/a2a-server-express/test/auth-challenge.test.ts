import { createAgentCard } from '@a2aplane/a2a-server-express';
import { ForbiddenError, type SecurityScheme, UnauthenticatedError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { authChallengeOf, withAuthChallenge } from '../src/http/auth-challenge.js';

const cardWith = (securitySchemes?: Record<string, SecurityScheme>, name = 'agent') =>
  createAgentCard({ baseUrl: 'http://127.0.0.1', name, description: 'd', skills: [], ...(securitySchemes ? { securitySchemes } : {}) });

describe('WWW-Authenticate from the card (RFC 9110 §11.6.1)', () => {
  it('one challenge per kind of scheme: Bearer for bearer, OAuth 2 and OpenID Connect (once), Basic, ApiKey naming the key', () => {
    const card = cardWith({
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } } } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' } },
      basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    });
    expect(authChallengeOf(card)).toBe(
      'Bearer realm="agent", Basic realm="agent", charset="UTF-8", ApiKey realm="agent", in="header", name="X-API-Key"',
    );
  });

  it('quotes the realm safely and still challenges when the card declares no scheme', () => {
    expect(authChallengeOf(cardWith(undefined, 'a "b" \\ c\r\nX-Injected: 1 é'))).toBe('Bearer realm="a \\"b\\" \\\\ cX-Injected: 1 "');
  });

  it('only UNAUTHENTICATED becomes 401 with the challenge', () => {
    const card = cardWith({ basic: { httpAuthSecurityScheme: { scheme: 'Basic' } } });
    const reply = () => ({ kind: 'json' as const, status: 200, body: {}, headers: { 'retry-after': '1' } });
    expect(withAuthChallenge(reply(), new UnauthenticatedError(), card)).toEqual({
      kind: 'json',
      status: 401,
      body: {},
      headers: { 'retry-after': '1', 'www-authenticate': 'Basic realm="agent", charset="UTF-8"' },
    });
    expect(withAuthChallenge(reply(), new ForbiddenError(), card)).toEqual(reply());
  });
});
