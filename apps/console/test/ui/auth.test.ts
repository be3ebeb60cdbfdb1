import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthProvider, AuthRequest } from '@a2aplane/a2a-client';
import { describe, expect, it } from 'vitest';
import { authFor, boundToOrigins } from '../../src/ui/lib/auth.js';
import { schemesOf } from '../../src/ui/lib/schemes.js';

const request = (url: string): AuthRequest => ({ method: 'POST', url: new URL(url), headers: new Headers(), body: '{}' });

describe('credentials in the console', () => {
  it('are applied only to requests for the origin they were typed for', async () => {
    const inner: AuthProvider = { apply: (r) => r.headers.set('authorization', 'Bearer t') };
    const bound = boundToOrigins(inner, new Set(['https://agent.example']));
    const own = request('https://agent.example/a2a/jsonrpc');
    const other = request('https://elsewhere.example/a2a/jsonrpc');
    const sameHostOtherPort = request('https://agent.example:8443/a2a');
    await bound.apply(own);
    await bound.apply(other);
    await bound.apply(sameHostOtherPort);
    expect(own.headers.get('authorization')).toBe('Bearer t');
    expect(other.headers.get('authorization')).toBeNull();
    expect(sameHostOtherPort.headers.get('authorization')).toBeNull();
  });

  it('reads API key, bearer and OAuth 2 schemes from v1.0 and v0.3 cards', () => {
    expect(
      schemesOf({
        securitySchemes: {
          key: { apiKeySecurityScheme: { location: 'query', name: 'k' } },
          bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
          oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://idp/token', scopes: { read: '' } } } } },
          tls: { mtlsSecurityScheme: {} },
        },
      }),
    ).toEqual([
      { name: 'key', kind: 'apiKey', location: 'query', param: 'k' },
      { name: 'bearer', kind: 'bearer' },
      { name: 'oauth', kind: 'oauth2', tokenUrl: 'https://idp/token', scopes: ['read'] },
      { name: 'tls', kind: 'unsupported', detail: expect.stringContaining('mutual TLS') },
    ]);
    expect(schemesOf({}, { securitySchemes: { k: { type: 'apiKey', in: 'header', name: 'X-Key' } } })).toEqual([
      { name: 'k', kind: 'apiKey', location: 'header', param: 'X-Key' },
    ]);
  });

  it('get an OAuth 2 client-credentials token through the client and send it to the agent only', async () => {
    const tokenRequests: string[] = [];
    const idp = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        tokenRequests.push(body);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'tok-1', token_type: 'Bearer', expires_in: 300 }));
      });
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    try {
      const tokenUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/token`;
      const [scheme] = schemesOf({
        securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } } },
      });
      const provider = authFor(
        scheme,
        { scheme: 'oauth', clientId: 'console', clientSecret: 's3', remember: false },
        new Set(['http://agent.test']),
        fetch,
        true,
      );
      const own = request('http://agent.test/a2a');
      const other = request('http://other.test/a2a');
      await provider?.apply(own);
      await provider?.apply(other);
      expect(own.headers.get('authorization')).toBe('Bearer tok-1');
      expect(other.headers.get('authorization')).toBeNull();
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0]).toContain('grant_type=client_credentials');
    } finally {
      idp.closeAllConnections();
      await new Promise<void>((resolve) => idp.close(() => resolve()));
    }
  });
});
