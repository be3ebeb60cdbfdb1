import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  generateKeyPair,
  type KeyPair,
  REQUEST_SIGNATURES_EXTENSION_URI,
  signAgentCard,
  toVerificationKey,
  withAgentIdExtension,
  withRequestSignaturesExtension,
} from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient } from '../src/index.js';

// Decision 0037: a client with a signing key uses the hmac-sha256 fast path by itself when the
// agent's card was verified (signed, AgentID bound to the signing key) and advertises it.

const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);

interface Agent {
  url: string;
  key: KeyPair;
  /** The `alg` of every signed request the agent verified, in order. */
  algs: string[];
  close(): Promise<void>;
}

/**
 * An agent that verifies signed callers, answering with the alg it verified. `ownKey`: the
 * verifier accepts the fast path; `sign`: the card is signed with the agent key; `card` edits the
 * card before it is signed.
 */
async function startAgent(options: {
  ownKey: boolean;
  sign: boolean;
  card?: (card: AgentCard, key: KeyPair) => AgentCard;
}): Promise<Agent> {
  const key = generateKeyPair('EdDSA');
  const algs: string[] = [];
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const verifier = createHttpSignatureVerifier({
    resolveKey: createCallerKeyResolver({ keys: [caller] }),
    ...(options.ownKey ? { ownKey: key } : {}),
  });
  let card = withAgentIdExtension(
    createAgentCard({ baseUrl: url, name: 'agent', description: 'verifies its callers', skills: [] }),
    agentIdFromPublicKey(key.publicKey),
  );
  card = options.card ? options.card(card, key) : withRequestSignaturesExtension(card, verifier);
  const a2a: A2AServer = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const alg = String(context.principal?.claims?.alg ?? 'none');
        algs.push(alg);
        const task = createTaskUpdater(context, events);
        task.submit();
        task.complete(`${context.principal?.agentId ?? 'nobody'} ${alg}`);
      },
    },
    authenticate: createHttpSignatureAuthenticator({ verifier }),
  });
  http.on(
    'request',
    createNodeHttpHandler(a2a, { heartbeatMs: 0, ...(options.sign ? { cardSigner: { sign: (c) => signAgentCard(c, key) } } : {}) }),
  );
  return {
    url,
    key,
    algs,
    async close() {
      await a2a.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const hello = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } });
const textOf = (result: Awaited<ReturnType<ReturnType<typeof createA2AClient>['sendMessage']>>) =>
  result.task?.status.message?.parts[0]?.text;

let fast: Agent;
let unsigned: Agent;
let noOwnKey: Agent;
let otherKey: Agent;
const other = generateKeyPair('EdDSA');

beforeAll(async () => {
  fast = await startAgent({ ownKey: true, sign: true });
  // An unsigned card advertising the fast path: nothing binds a key to it.
  unsigned = await startAgent({ ownKey: true, sign: false });
  noOwnKey = await startAgent({ ownKey: false, sign: true });
  // Signed with the agent key, but the card declares another AgentID: discovery refuses it.
  otherKey = await startAgent({
    ownKey: true,
    sign: true,
    // withRequestSignaturesExtension refuses this card, so the extension is written by hand.
    card: (card) => {
      const quoting = withAgentIdExtension(card, agentIdFromPublicKey(other.publicKey));
      const advert = { uri: REQUEST_SIGNATURES_EXTENSION_URI, params: { algs: ['ed25519', 'hmac-sha256'] } };
      return { ...quoting, capabilities: { ...quoting.capabilities, extensions: [...(quoting.capabilities.extensions ?? []), advert] } };
    },
  });
});

afterAll(async () => {
  await Promise.all([fast, unsigned, noOwnKey, otherKey].map((agent) => agent?.close()));
});

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('the fast path is chosen by discovery (%s)', (binding) => {
  it('a verified card that advertises hmac-sha256: every call is signed hmac-sha256 and verified as the caller', async () => {
    const client = createA2AClient({
      baseUrl: fast.url,
      preferredBindings: [binding],
      trustedKeys: [toVerificationKey(fast.key)],
      auth: createHttpRequestSigner({ key: caller }),
    });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} hmac-sha256`);
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} hmac-sha256`);
  });

  it("requestSignature: 'ed25519' opts out: the same agent sees Ed25519", async () => {
    const client = createA2AClient({
      baseUrl: fast.url,
      preferredBindings: [binding],
      trustedKeys: [toVerificationKey(fast.key)],
      auth: createHttpRequestSigner({ key: caller, requestSignature: 'ed25519' }),
    });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} ed25519`);
  });

  it('an unsigned card that advertises it: Ed25519 (no key is ever taken from an unverified card)', async () => {
    const client = createA2AClient({ baseUrl: unsigned.url, preferredBindings: [binding], auth: createHttpRequestSigner({ key: caller }) });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} ed25519`);
  });

  it('the same card given to the client as is (not discovered, so not verified): Ed25519', async () => {
    const card = await createA2AClient({ baseUrl: fast.url, trustedKeys: [toVerificationKey(fast.key)] }).getCard();
    const client = createA2AClient({ card, preferredBindings: [binding], auth: createHttpRequestSigner({ key: caller }) });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} ed25519`);
  });

  it('a card verified by a custom cardVerifier that names no key: Ed25519', async () => {
    const client = createA2AClient({
      baseUrl: fast.url,
      preferredBindings: [binding],
      cardVerifier: async () => ({ status: 'valid', kid: 'k', algorithm: 'EdDSA', agentId: agentIdFromPublicKey(fast.key.publicKey) }),
      auth: createHttpRequestSigner({ key: caller }),
    });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} ed25519`);
  });

  it('a server without ownKey does not advertise the fast path, and is called with Ed25519', async () => {
    const client = createA2AClient({
      baseUrl: noOwnKey.url,
      preferredBindings: [binding],
      trustedKeys: [toVerificationKey(noOwnKey.key)],
      auth: createHttpRequestSigner({ key: caller }),
    });
    const card = await client.getCard();
    expect(card.capabilities.extensions?.find((e) => e.uri === REQUEST_SIGNATURES_EXTENSION_URI)?.params).toEqual({ algs: ['ed25519'] });
    expect(textOf(await client.sendMessage(hello()))).toBe(`${callerId} ed25519`);
  });

  it('a card that declares another AgentID than its signer is refused before anything is signed', async () => {
    const before = otherKey.algs.length;
    const client = createA2AClient({
      baseUrl: otherKey.url,
      preferredBindings: [binding],
      trustedKeys: [toVerificationKey(otherKey.key)],
      auth: createHttpRequestSigner({ key: caller }),
    });
    await expect(client.sendMessage(hello())).rejects.toMatchObject({ name: 'CardSignatureInvalidError', status: 'agent-id-mismatch' });
    expect(otherKey.algs.length).toBe(before);
  });
});
