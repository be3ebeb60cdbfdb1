import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createCallerKeyResolver, createHttpRequestSigner, createHttpSignatureVerifier, generateKeyPair } from '@a2aplane/a2a-identity';
import {
  type AuthRequest,
  createAuthenticator,
  createHttpSignatureAuthenticator,
  createJwtVerifier,
  nodeSignatureCrypto,
} from '@a2aplane/a2a-server-express';
import { SignJWT } from 'jose';
import { num, passFail, table } from '../lib/format.js';
import { listen } from '../lib/listen.js';
import { perCall } from '../lib/load.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/** Issue 37: JWT verification with a cached JWKS must cost <= 25 µs of server CPU per request. */
const GOAL_US = 25;

type Row = { name: string; usPerRequest: number };

/** CPU time (user + system) per call over `count` sequential calls, after 200 warm-up calls. */
async function cpuPerCall(count: number, call: () => Promise<unknown>): Promise<number> {
  await perCall(Math.min(200, count), call);
  return (await perCall(count, call)).cpuUs;
}

async function jwtRows(count: number): Promise<Row[]> {
  const [issuer, audience] = ['https://idp.example', 'https://agent.example/a2a'];
  const pairs = [
    ['ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['RS256', generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['EdDSA', generateKeyPairSync('ed25519')],
  ] as const;
  const keys = pairs.map(([alg, { publicKey, privateKey }]) => ({ alg, kid: randomUUID(), publicKey, privateKey }));
  const jwks = JSON.stringify({ keys: keys.map(({ alg, kid, publicKey }) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg })) });
  const server = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  try {
    const securitySchemes = {
      oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: `${issuer}/token`, scopes: {} } } } },
    };
    const authenticator = (verifiedCacheMs?: number) => {
      const jwksUrl = `${server.url}/jwks`;
      const oauth2 = createJwtVerifier({ securitySchemes, audience, issuer, jwksUrl, allowInsecureLoopback: true, verifiedCacheMs });
      return createAuthenticator({ securitySchemes, oauth2 });
    };
    const rows: Row[] = [];
    for (const { alg, kid, privateKey } of keys) {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ sub: 'caller', scope: 'skill:echo', iss: issuer, aud: audience, iat: now, exp: now + 3600 })
        .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
        .sign(privateKey);
      const request = { headers: { authorization: `Bearer ${token}` }, query: new URLSearchParams(), method: 'POST' };
      for (const [label, authenticate] of [
        ['every request verified (verifiedCacheMs: 0)', authenticator(0)],
        ['repeated token (defaults)', authenticator()],
      ] as const) {
        const usPerRequest = await cpuPerCall(count, async () => {
          if (!(await authenticate(request))) throw new Error('token refused');
        });
        rows.push({ name: `JWT ${alg}, cached JWKS, ${label}`, usPerRequest });
      }
    }
    return rows;
  } finally {
    await server.close();
  }
}

/** The RFC 9421 Ed25519 verifier on the same path, for comparison: each request is signed beforehand (nonces are single-use). */
async function httpSignatureRow(count: number): Promise<Row> {
  const caller = generateKeyPair('EdDSA');
  const signer = createHttpRequestSigner({ key: caller, requestSignature: 'ed25519' });
  const authenticate = createHttpSignatureAuthenticator({
    verifier: createHttpSignatureVerifier({ ...nodeSignatureCrypto, resolveKey: createCallerKeyResolver({ keys: [caller] }) }),
  });
  const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';
  const total = count + Math.min(200, count);
  const signed: AuthRequest[] = [];
  for (let i = 0; i < total; i++) {
    const headers = new Headers({ 'content-type': 'application/json' });
    await signer.apply({ method: 'POST', url: new URL('http://agent.example/a2a/jsonrpc'), headers, body });
    signed.push({
      headers: { ...Object.fromEntries(headers), host: 'agent.example' },
      query: new URLSearchParams(),
      method: 'POST',
      target: '/a2a/jsonrpc',
      body: new TextEncoder().encode(body),
    });
  }
  let next = 0;
  const usPerRequest = await cpuPerCall(count, async () => {
    const principal = await authenticate(signed[next++] as AuthRequest, { authorities: ['agent.example'] });
    if (!principal) throw new Error('signature refused');
  });
  return { name: 'RFC 9421 Ed25519 request signature (createHttpSignatureAuthenticator, node:crypto)', usPerRequest };
}

/** Server CPU per authenticated request: JWT bearer verification with a cached JWKS, beside RFC 9421. */
export async function runTokenVerify(options: RunOptions): Promise<SuiteResult> {
  const count = options.quick ? 2000 : 20_000;
  const rows = [...(await jwtRows(count)), await httpSignatureRow(count)];
  const markdown = [
    `${num(count)} sequential authentications per row after a warm-up, CPU time (user + system) per request. Goal (issue 37): JWT verification with a cached JWKS <= ${GOAL_US} µs. A client sends one token for many requests; the verifier reuses a verified token until its exp (at most 60 s), so the repeated-token rows are the steady state and the every-request rows the cost of a new token.`,
    '',
    table(
      ['authenticator', 'µs CPU / request', 'goal'],
      rows.map((r) => [r.name, num(r.usPerRequest, 1), r.name.startsWith('JWT') ? `**${passFail(r.usPerRequest <= GOAL_US)}**` : '—']),
    ),
  ].join('\n');
  return { markdown, data: rows };
}
