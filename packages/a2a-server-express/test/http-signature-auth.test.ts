import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createJwks,
  exportPrivateJwk,
  generateKeyPair,
  signAgentCard,
  toVerificationKey,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import { ForbiddenError, UnauthenticatedError } from '@a2aplane/a2a-types';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuthenticator,
  createHttpSignatureAuthenticator,
  createStaticApiKeyVerifier,
  nodeSignatureCrypto,
  verifyEd25519,
} from '../src/auth/index.js';
import { a2aExpress } from '../src/express/index.js';
import { type A2AServer, createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '../src/index.js';

const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
const carded = generateKeyPair('EdDSA'); // known only through its signed card
const cardedId = agentIdFromPublicKey(carded.publicKey);
const stranger = generateKeyPair('EdDSA');
// The servers' own agent key: callers that know it sign with the fast path (hmac-sha256, decision 0028).
const serverAgent = generateKeyPair('EdDSA');

const servers: Server[] = [];
/** What `onRefused` was told, for every refused signature on every test server. */
const refusals: Array<{ reason: string; detail: string | undefined; method: string; target: string }> = [];
const a2aServers: A2AServer[] = [];
let nodeUrl = '';
let expressUrl = '';
let expressJsonUrl = '';
let cardHostUrl = '';

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `native`: node:crypto primitives (`nodeSignatureCrypto`); otherwise the verifier's portable defaults. */
function a2aServer(baseUrl: string, native = false): A2AServer {
  const securitySchemes = { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl,
      name: 'verified',
      description: 'Knows who calls',
      skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: [] }],
      securitySchemes,
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.complete(`hello ${context.principal?.agentId ?? `key:${context.principal?.id ?? 'nobody'}`}`);
      },
    },
    authenticate: createHttpSignatureAuthenticator({
      verifier: createHttpSignatureVerifier({
        ...(native ? nodeSignatureCrypto : {}),
        ownKey: serverAgent,
        resolveKey: createCallerKeyResolver({
          keys: [caller],
          cardUrlOf: (agentId) => (agentId === cardedId ? `${cardHostUrl}/.well-known/agent-card.json` : undefined),
          allowInsecureLoopback: true,
        }),
      }),
      fallback: createAuthenticator({
        securitySchemes,
        apiKey: createStaticApiKeyVerifier({ 'k-legacy': { id: 'legacy-peer', scheme: 'key' } }),
      }),
      onRefused: (refusal) => refusals.push(refusal),
    }),
  });
  a2aServers.push(server);
  return server;
}

beforeAll(async () => {
  // The carded caller publishes its signed card and JWKS on its own origin.
  const cardHost = createServer((req, res) => {
    const card = withAgentIdExtension(
      createAgentCard({ baseUrl: cardHostUrl, name: 'carded', description: 'a caller', skills: [] }),
      cardedId,
    );
    const body =
      req.url === '/.well-known/jwks.json'
        ? JSON.stringify(createJwks([carded]))
        : signAgentCard(card, carded, { jku: `${cardHostUrl}/.well-known/jwks.json` }).json;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  cardHostUrl = await listen(cardHost);

  const node = createServer();
  nodeUrl = await listen(node);
  node.on('request', createNodeHttpHandler(a2aServer(nodeUrl, true)));

  // The express middleware, called as an express app calls it.
  const notFound = (res: ServerResponse) => () => res.writeHead(404).end();
  const expressServer = createServer();
  expressUrl = await listen(expressServer);
  const middleware = a2aExpress(a2aServer(expressUrl));
  expressServer.on('request', (req, res) => middleware(req, res, notFound(res)));

  // express.json() in front: the raw bytes are gone, so a signed POST cannot be checked.
  const parseJson = express.json();
  const jsonServer = createServer();
  expressJsonUrl = await listen(jsonServer);
  const boundJson = a2aExpress(a2aServer(expressJsonUrl));
  jsonServer.on('request', (req, res) => parseJson(req as never, res as never, () => boundJson(req, res, notFound(res))));
});

afterAll(async () => {
  await Promise.all(a2aServers.map((s) => s.close()));
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const message = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } });

/** One A2A request over a binding, as bytes, so a test can replay or alter exactly what was signed. */
function a2aRequest(base: string, binding: 'JSONRPC' | 'REST') {
  if (binding === 'JSONRPC') {
    return { url: `${base}/a2a/jsonrpc`, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message() }) };
  }
  return { url: `${base}/a2a/rest/message:send`, body: JSON.stringify(message()) };
}

async function send(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) };
}

interface Reply {
  error?: { data?: unknown; status?: string };
  result?: { task: ReplyTask };
  task?: ReplyTask;
}
interface ReplyTask {
  status: { state: string; message?: { parts?: Array<{ text?: string }> } };
}

/** The text the task completed with (`hello <who>`), or `refused:...` with the error. */
function outcome(binding: 'JSONRPC' | 'REST', reply: { status: number; json: unknown }): string {
  const body = reply.json as Reply;
  if (binding === 'JSONRPC' && body.error) return `refused:${JSON.stringify(body.error.data ?? [])}`;
  if (binding === 'REST' && reply.status !== 200) return `refused:${reply.status}:${body.error?.status}`;
  const task = (binding === 'JSONRPC' ? body.result?.task : body.task) as ReplyTask;
  return task.status.message?.parts?.[0]?.text ?? task.status.state;
}

const signerOf = (key = caller) => createHttpRequestSigner({ key });
const fastSignerOf = (key = caller) => createHttpRequestSigner({ key, serverKey: toVerificationKey(serverAgent) });

/** A POST sent with an explicit Host header (fetch cannot set one): what a relaying server could forward. */
function sendWithHost(
  url: string,
  host: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...headers, host, 'content-type': 'application/json' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('verifyEd25519 (node:crypto)', () => {
  it('verifies what the key signed and nothing else', async () => {
    const { createPrivateKey, sign } = await import('node:crypto');
    const data = new TextEncoder().encode('signed bytes');
    const signature = new Uint8Array(sign(null, data, createPrivateKey({ key: exportPrivateJwk(caller) as never, format: 'jwk' })));
    expect(verifyEd25519(caller.publicKey, data, signature)).toBe(true);
    expect(verifyEd25519(stranger.publicKey, data, signature)).toBe(false);
    expect(verifyEd25519(caller.publicKey, new TextEncoder().encode('other bytes'), signature)).toBe(false);
    expect(verifyEd25519(caller.publicKey, data, signature.subarray(1))).toBe(false);
    expect(verifyEd25519(new Uint8Array(31), data, signature)).toBe(false);
  });
});

describe('nodeSignatureCrypto (node:crypto)', () => {
  it('sha256, sha256Base64 and hmacSha256 give what createHash and createHmac give, for any key and message length', async () => {
    const { createHash, createHmac } = await import('node:crypto');
    const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
    for (const length of [0, 1, 63, 64, 65, 300, 4096, 4097, 10_000]) {
      const data = bytes(length, 3);
      expect(Buffer.from(nodeSignatureCrypto.sha256(data))).toEqual(createHash('sha256').update(data).digest());
      expect(nodeSignatureCrypto.sha256Base64(data)).toBe(createHash('sha256').update(data).digest('base64'));
      for (const keyLength of [0, 16, 32, 64, 65, 200]) {
        const key = bytes(keyLength, 11);
        expect(Buffer.from(nodeSignatureCrypto.hmacSha256(key, data))).toEqual(createHmac('sha256', key).update(data).digest());
      }
    }
  });

  it('hmacSha256 follows a key buffer whose bytes changed (no stale key)', async () => {
    const { createHmac } = await import('node:crypto');
    const key = new Uint8Array(32).fill(1);
    const data = new TextEncoder().encode('"@method": POST');
    expect(Buffer.from(nodeSignatureCrypto.hmacSha256(key, data))).toEqual(createHmac('sha256', key).update(data).digest());
    key.fill(2);
    expect(Buffer.from(nodeSignatureCrypto.hmacSha256(key, data))).toEqual(createHmac('sha256', key).update(data).digest());
  });

  it('hmacSha256 alternating between keys and message lengths gives each its own MAC (the pad kept in the scratch buffer follows the key)', async () => {
    const { createHmac } = await import('node:crypto');
    const keys = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2), new Uint8Array(64).fill(3)];
    for (let round = 0; round < 3; round++) {
      for (const [index, key] of keys.entries()) {
        for (const length of [400, 401, 400, 0, 4096]) {
          const data = Uint8Array.from({ length }, (_, i) => (i + index + round) & 0xff);
          expect(Buffer.from(nodeSignatureCrypto.hmacSha256(key, data))).toEqual(createHmac('sha256', key).update(data).digest());
        }
      }
    }
  });
});

describe('createHttpSignatureAuthenticator without a signature', () => {
  const verifier = { verify: () => Promise.reject(new Error('not called')) };
  const unsigned = { headers: {}, query: new URLSearchParams(), method: 'POST' };

  it('hands the request to the fallback, whose synchronous throw becomes a rejection', async () => {
    const served = createHttpSignatureAuthenticator({ verifier, fallback: async () => ({ id: 'key-1', scheme: 'apiKey' }) });
    await expect(served(unsigned)).resolves.toEqual({ id: 'key-1', scheme: 'apiKey' });
    const throwing = createHttpSignatureAuthenticator({
      verifier,
      fallback: (() => {
        throw new UnauthenticatedError();
      }) as never,
    });
    const result = throwing(unsigned);
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('without a fallback: anonymous only when allowed, else refused', async () => {
    await expect(createHttpSignatureAuthenticator({ verifier, allowAnonymous: true })(unsigned)).resolves.toBeUndefined();
    await expect(createHttpSignatureAuthenticator({ verifier })(unsigned)).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('a refused signature rejects with one generic UnauthenticatedError; the reason goes to onRefused only (issue 42)', async () => {
    const told: string[] = [];
    const signed = { ...unsigned, headers: { 'signature-input': 'x', signature: 'y' } };
    const messages: string[] = [];
    for (const reason of ['replayed', 'unknown-key', 'bad-signature', 'expired', 'malformed']) {
      const refusing = createHttpSignatureAuthenticator({
        verifier: { verify: async () => ({ ok: false, reason, detail: `why: ${reason}` }) },
        onRefused: (refusal) => told.push(`${refusal.reason}|${refusal.detail}|${refusal.method}`),
      });
      const error = await refusing(signed).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnauthenticatedError);
      expect((error as Error).message).not.toContain(reason);
      messages.push((error as Error).message);
    }
    expect(new Set(messages)).toEqual(new Set(['The request signature was refused.']));
    expect(told).toEqual(
      ['replayed', 'unknown-key', 'bad-signature', 'expired', 'malformed'].map((r) => `${r}|why: ${r}|${unsigned.method}`),
    );
    // A hook that throws changes nothing.
    const throwingHook = createHttpSignatureAuthenticator({
      verifier: { verify: async () => ({ ok: false, reason: 'replayed' }) },
      onRefused: () => {
        throw new Error('log down');
      },
    });
    await expect(throwingHook(signed)).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(() => createHttpSignatureAuthenticator({ verifier, onRefused: 'log' as never })).toThrow(TypeError);
  });

  it("a good signature from a caller the verifier's identity check refuses is FORBIDDEN, naming that caller", async () => {
    const refusing = createHttpSignatureAuthenticator({
      verifier: { verify: async () => ({ ok: false, reason: 'not-allowed', detail: 'no', agentId: callerId }) },
    });
    const error = await refusing({ ...unsigned, headers: { 'signature-input': 'x', signature: 'y' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).message).toContain(callerId);
  });
});

// node:http runs with verifyEd25519 (node:crypto), express with the verifier's WebCrypto default.
describe.each([
  ['node:http', () => nodeUrl],
  ['express', () => expressUrl],
])('verified callers (RFC 9421) on the %s binding', (_name, base) => {
  describe.each(['JSONRPC', 'REST'] as const)('over %s', (binding) => {
    it('a signed request is served and the principal is the caller AgentID', async () => {
      const { url, body } = a2aRequest(base(), binding);
      const reply = await send(url, body, await signerOf().sign({ method: 'POST', url, body }));
      expect(outcome(binding, reply)).toBe(`hello ${callerId}`);
    });

    it('a replayed signed request is refused as UNAUTHENTICATED', async () => {
      const { url, body } = a2aRequest(base(), binding);
      const headers = await signerOf().sign({ method: 'POST', url, body });
      expect(outcome(binding, await send(url, body, headers))).toBe(`hello ${callerId}`);
      const replayed = outcome(binding, await send(url, body, headers));
      expect(replayed).toMatch(/^refused:/);
      expect(replayed).toMatch(binding === 'REST' ? /401:UNAUTHENTICATED/ : /UNAUTHENTICATED/);
    });

    it('a signed request whose body was altered is refused as UNAUTHENTICATED', async () => {
      const { url, body } = a2aRequest(base(), binding);
      const headers = await signerOf().sign({ method: 'POST', url, body });
      const altered = body.replace('"hi"', '"transfer everything"');
      expect(outcome(binding, await send(url, altered, headers))).toMatch(/^refused:.*UNAUTHENTICATED/);
    });

    it('a key nobody trusts is refused, and a bad signature is never downgraded to the API key', async () => {
      const { url, body } = a2aRequest(base(), binding);
      expect(outcome(binding, await send(url, body, await signerOf(stranger).sign({ method: 'POST', url, body })))).toMatch(/^refused:/);
      const headers = { ...(await signerOf(stranger).sign({ method: 'POST', url, body })), 'x-api-key': 'k-legacy' };
      expect(outcome(binding, await send(url, body, headers))).toMatch(/^refused:/);
    });

    it('an unknown key and a bad signature get the same answer on the wire; the server is told which (issue 42)', async () => {
      const { url, body } = a2aRequest(base(), binding);
      refusals.length = 0;
      const unknown = await send(url, body, await signerOf(stranger).sign({ method: 'POST', url, body }));
      const tampered = await signerOf().sign({ method: 'POST', url, body });
      tampered.signature = `a2a=:${tampered.signature?.[5] === 'A' ? 'B' : 'A'}${tampered.signature?.slice(6)}`;
      const bad = await send(url, body, tampered);
      const wire = (reply: { status: number; json: unknown }) => {
        const json = reply.json as { error?: unknown };
        return { status: reply.status, error: json.error };
      };
      expect(outcome(binding, unknown)).toMatch(/^refused:.*UNAUTHENTICATED/);
      expect(wire(unknown)).toEqual(wire(bad));
      expect(JSON.stringify(unknown.json)).not.toMatch(/unknown-key|bad-signature/);
      expect(refusals.map((refusal) => refusal.reason)).toEqual(['unknown-key', 'bad-signature']);
    });

    it('a peer that does not sign keeps working with its API key; without one it is refused', async () => {
      const { url, body } = a2aRequest(base(), binding);
      expect(outcome(binding, await send(url, body, { 'x-api-key': 'k-legacy' }))).toBe('hello key:legacy-peer');
      expect(outcome(binding, await send(url, body, {}))).toMatch(/^refused:/);
    });

    it('the fast path: a caller that knows the server key signs hmac-sha256 and is served as its AgentID; a replay is refused', async () => {
      const { url, body } = a2aRequest(base(), binding);
      const headers = await fastSignerOf().sign({ method: 'POST', url, body });
      expect(headers['signature-input']).toContain('alg="hmac-sha256"');
      expect(outcome(binding, await send(url, body, headers))).toBe(`hello ${callerId}`);
      expect(outcome(binding, await send(url, body, headers))).toMatch(/^refused:.*UNAUTHENTICATED/);
      const { url: url2, body: body2 } = a2aRequest(base(), binding);
      const altered = body2.replace('"hi"', '"transfer everything"');
      expect(outcome(binding, await send(url2, altered, await fastSignerOf().sign({ method: 'POST', url: url2, body: body2 })))).toMatch(
        /^refused:.*UNAUTHENTICATED/,
      );
    });

    it('by default a request signed for another server is refused: the server checks the authority against its card', async () => {
      // Both servers trust the caller. A request signed for the other one arrives here with its Host kept.
      const other = base() === nodeUrl ? expressUrl : nodeUrl;
      const { url: signedFor, body } = a2aRequest(other, binding);
      const headers = await signerOf().sign({ method: 'POST', url: signedFor, body });
      const { url } = a2aRequest(base(), binding);
      const relayed = await sendWithHost(url, new URL(other).host, body, headers);
      expect(outcome(binding, relayed)).toMatch(/^refused:.*UNAUTHENTICATED/);
      // The same request at its own server is served (so the refusal above is the authority check).
      expect(outcome(binding, await sendWithHost(signedFor, new URL(other).host, body, headers))).toBe(`hello ${callerId}`);
    });

    it("a caller known only by its signed card: the key is read from the caller's card", async () => {
      const { url, body } = a2aRequest(base(), binding);
      const reply = await send(url, body, await signerOf(carded).sign({ method: 'POST', url, body }));
      expect(outcome(binding, reply)).toBe(`hello ${cardedId}`);
    });
  });

  it('a signed GET (REST GetTask) needs no digest', async () => {
    const { url, body } = a2aRequest(base(), 'REST');
    const sent = (await send(url, body, await signerOf().sign({ method: 'POST', url, body }))).json as { task: { id: string } };
    const getUrl = `${base()}/a2a/rest/tasks/${sent.task.id}`;
    const response = await fetch(getUrl, { headers: await signerOf().sign({ method: 'GET', url: getUrl }) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(sent.task.id);
  });
});

describe('express.json() in front of the binding', () => {
  it('a signed POST is refused (the raw body is gone, its digest cannot be checked); the API key still works', async () => {
    const { url, body } = a2aRequest(expressJsonUrl, 'JSONRPC');
    expect(outcome('JSONRPC', await send(url, body, await signerOf().sign({ method: 'POST', url, body })))).toMatch(
      /^refused:.*UNAUTHENTICATED/,
    );
    expect(outcome('JSONRPC', await send(url, body, { 'x-api-key': 'k-legacy' }))).toBe('hello key:legacy-peer');
  });
});

describe('express mount prefix (app.use("/agents/a", a2aExpress(...)))', () => {
  it('a signed request to /agents/a/a2a/jsonrpc verifies against the full path the caller signed', async () => {
    // What express does for a mounted middleware: `url` loses the prefix, `originalUrl` keeps it.
    const server = createServer();
    const base = await listen(server);
    const middleware = a2aExpress(a2aServer(`${base}/agents/a`));
    server.on('request', (req, res) => {
      (req as typeof req & { originalUrl?: string }).originalUrl = req.url;
      req.url = (req.url ?? '/').replace(/^\/agents\/a/, '') || '/';
      middleware(req, res, () => res.writeHead(404).end());
    });
    const url = `${base}/agents/a/a2a/jsonrpc`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message() });
    expect(outcome('JSONRPC', await send(url, body, await signerOf().sign({ method: 'POST', url, body })))).toBe(`hello ${callerId}`);
  });
});
