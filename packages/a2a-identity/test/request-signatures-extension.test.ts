import { ed25519 } from '@noble/curves/ed25519';
import type { AgentCard } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createPinnedKeyResolver,
  encodeBase64Url,
  fastPathKeyOf,
  generateKeyPair,
  readRequestSignatureAlgs,
  REQUEST_SIGNATURES_EXTENSION_URI,
  signAgentCard,
  verifyAgentCard,
  withAgentIdExtension,
  withRequestSignaturesExtension,
} from '../src/index.js';

// Decision 0037: the card advertises the request signatures a server accepts; a signer derives
// the fast path only from the key that verified the card, bound to the card's AgentID.

const server = generateKeyPair('EdDSA');
const serverId = agentIdFromPublicKey(server.publicKey);
const caller = generateKeyPair('EdDSA');
const resolveKey = () => undefined;

const baseCard: AgentCard = {
  name: 'agent',
  description: 'test',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const fastVerifier = createHttpSignatureVerifier({ resolveKey, ownKey: server, authorities: 'any' });
const advertised = withRequestSignaturesExtension(withAgentIdExtension(baseCard, serverId), fastVerifier);
const validOf = (key = server) => ({
  status: 'valid',
  kid: key.kid,
  algorithm: 'EdDSA',
  agentId: agentIdFromPublicKey(key.publicKey),
  publicKey: encodeBase64Url(key.publicKey),
});

describe('withRequestSignaturesExtension / readRequestSignatureAlgs', () => {
  it('a verifier with ownKey advertises ed25519 and hmac-sha256; without, ed25519 only', () => {
    expect(fastVerifier.algorithms).toEqual(['ed25519', 'hmac-sha256']);
    expect(fastVerifier.agentId).toBe(serverId);
    expect(advertised.capabilities.extensions?.find((e) => e.uri === REQUEST_SIGNATURES_EXTENSION_URI)).toMatchObject({
      required: false,
      params: { algs: ['ed25519', 'hmac-sha256'] },
    });
    expect(readRequestSignatureAlgs(advertised)).toEqual(['ed25519', 'hmac-sha256']);
    const plain = createHttpSignatureVerifier({ resolveKey, authorities: 'any' });
    expect(plain.algorithms).toEqual(['ed25519']);
    expect(readRequestSignatureAlgs(withRequestSignaturesExtension(baseCard, plain))).toEqual(['ed25519']);
  });

  it('advertising the fast path needs the card to declare the AgentID of ownKey', () => {
    expect(() => withRequestSignaturesExtension(baseCard, fastVerifier)).toThrow(TypeError);
    const other = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);
    expect(() => withRequestSignaturesExtension(withAgentIdExtension(baseCard, other), fastVerifier)).toThrow(/ownKey/);
  });

  it('replaces an earlier declaration instead of adding a second one', () => {
    const twice = withRequestSignaturesExtension(advertised, createHttpSignatureVerifier({ resolveKey, authorities: 'any' }));
    expect(twice.capabilities.extensions?.filter((e) => e.uri === REQUEST_SIGNATURES_EXTENSION_URI)).toHaveLength(1);
    expect(readRequestSignatureAlgs(twice)).toEqual(['ed25519']);
  });

  it('reads nothing from junk (untrusted input never throws) and drops unknown algs', () => {
    for (const junk of [null, 1, 'card', [], {}, { capabilities: null }, { capabilities: { extensions: {} } }]) {
      expect(readRequestSignatureAlgs(junk)).toEqual([]);
    }
    const card = {
      capabilities: { extensions: [{ uri: REQUEST_SIGNATURES_EXTENSION_URI, params: { algs: ['none', 'hmac-sha256', 7] } }] },
    };
    expect(readRequestSignatureAlgs(card)).toEqual(['hmac-sha256']);
  });
});

describe('fastPathKeyOf: only a verified, bound, advertising card gives a key', () => {
  it('the verified signing key of a card that declares its AgentID and advertises hmac-sha256', () => {
    expect(fastPathKeyOf({ card: advertised, verification: validOf() })?.publicKey).toEqual(server.publicKey);
  });

  it('verifyAgentCard names the signing key (base64url) next to its AgentID', async () => {
    const signed = signAgentCard(advertised, server);
    const result = await verifyAgentCard(signed.json, createPinnedKeyResolver([server]));
    expect(result).toEqual(validOf());
    expect(fastPathKeyOf({ card: JSON.parse(signed.json), verification: result })?.publicKey).toEqual(server.publicKey);
  });

  it.each([
    ['no verification (a card given as is)', undefined],
    ['an unsigned card', { status: 'no-signature' }],
    ['a rejected card', { status: 'tampered', detail: 'x' }],
    ['a verified card without the key', { ...validOf(), publicKey: undefined }],
    ['a key that does not hash to the AgentID', { ...validOf(), publicKey: encodeBase64Url(caller.publicKey) }],
    ['an AgentID other than the card declares', validOf(caller)],
    ['an ES256 signer', { ...validOf(), algorithm: 'ES256' }],
    ['a key of the wrong length', { ...validOf(), publicKey: encodeBase64Url(new Uint8Array(31)) }],
  ])('%s: none', (_name, verification) => {
    expect(fastPathKeyOf({ card: advertised, verification })).toBeUndefined();
  });

  it('a card that does not advertise hmac-sha256 (or declares no AgentID): none', () => {
    const ed25519Only = withRequestSignaturesExtension(withAgentIdExtension(baseCard, serverId), {
      algorithms: ['ed25519'],
    });
    expect(fastPathKeyOf({ card: ed25519Only, verification: validOf() })).toBeUndefined();
    expect(fastPathKeyOf({ card: withAgentIdExtension(baseCard, serverId), verification: validOf() })).toBeUndefined();
    const { capabilities, ...rest } = advertised;
    const noAgentId = { ...rest, capabilities: { ...capabilities, extensions: capabilities.extensions?.slice(1) } };
    expect(fastPathKeyOf({ card: noAgentId, verification: validOf() })).toBeUndefined();
  });

  it('a small-order signing key: none (its agreement would be predictable)', () => {
    const weak = { kid: 'weak', algorithm: 'EdDSA' as const, publicKey: ed25519.Point.ZERO.toBytes(), privateKey: new Uint8Array(32) };
    const card = {
      ...advertised,
      capabilities: {
        extensions: [...(withAgentIdExtension(advertised, agentIdFromPublicKey(weak.publicKey)).capabilities.extensions ?? [])],
      },
    };
    expect(fastPathKeyOf({ card, verification: validOf(weak) })).toBeUndefined();
  });
});

describe('createHttpRequestSigner().forPeer', () => {
  const peer = { card: advertised, verification: validOf() };
  const algOf = async (signer: ReturnType<typeof createHttpRequestSigner>) =>
    /alg="([^"]+)"/.exec((await signer.sign({ method: 'GET', url: 'https://agent.example.com/a2a/rest/tasks' }))['signature-input']!)?.[1];

  it("'auto' (default): hmac-sha256 with a verified advertising peer, Ed25519 with any other", async () => {
    const signer = createHttpRequestSigner({ key: caller });
    expect(await algOf(signer.forPeer(peer))).toBe('hmac-sha256');
    expect(await algOf(signer.forPeer({ card: advertised, verification: { status: 'no-signature' } }))).toBe('ed25519');
    expect(await algOf(signer)).toBe('ed25519');
  });

  it("'ed25519' opts out, and an explicit serverKey wins over the card", async () => {
    expect(await algOf(createHttpRequestSigner({ key: caller, requestSignature: 'ed25519' }).forPeer(peer))).toBe('ed25519');
    const pinned = createHttpRequestSigner({ key: caller, serverKey: generateKeyPair('EdDSA') });
    expect(pinned.forPeer(peer)).toBe(pinned);
    expect(() => createHttpRequestSigner({ key: caller, requestSignature: 'hmac' as 'auto' })).toThrow(TypeError);
  });

  it('the fast-path signer is verified by the server that owns the card key', async () => {
    const verifier = createHttpSignatureVerifier({ resolveKey: () => caller, ownKey: server, authorities: 'any' });
    const url = 'https://agent.example.com/a2a/rest/tasks';
    const headers = await createHttpRequestSigner({ key: caller }).forPeer(peer).sign({ method: 'GET', url });
    expect(await verifier.verify({ method: 'GET', authority: 'agent.example.com', target: '/a2a/rest/tasks', headers })).toMatchObject({
      ok: true,
      alg: 'hmac-sha256',
    });
  });
});
