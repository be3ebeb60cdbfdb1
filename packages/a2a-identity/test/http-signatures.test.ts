import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  contentDigest,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createNonceCache,
  exportPublicJwk,
  generateKeyPair,
  type HttpSignatureMessage,
  httpSignatureBase,
  keyPairFromPrivateKey,
  readHttpSignature,
  signHttpMessage,
  type VerifiableRequest,
  type VerificationKey,
  verifyHttpSignatureWith,
} from '../src/index.js';

const fromB64 = (text: string) => Uint8Array.from(Buffer.from(text, 'base64'));

// RFC 9421 Appendix B.1.4 (test-key-ed25519): PKCS#8 private key and SPKI public key; the raw
// 32-byte key is the tail of each DER document.
const B14_PRIVATE = fromB64('MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF').subarray(-32);
const B14_PUBLIC = fromB64('MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=').subarray(-32);

// RFC 9421 Appendix B.2 test-request.
const TEST_REQUEST: HttpSignatureMessage = {
  method: 'POST',
  authority: 'example.com',
  target: '/foo?param=Value&Pet=dog',
  headers: {
    Host: 'example.com',
    Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'Content-Type': 'application/json',
    'Content-Digest': 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'Content-Length': '18',
  },
};

// RFC 9421 Appendix B.2.6 "Signing a Request Using ed25519".
const B26_COMPONENTS = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B26_SIGNATURE_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE = 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

describe('RFC 9421 test vectors (Ed25519, Appendix B.2.6 with the B.1.4 key)', () => {
  const b14Key = keyPairFromPrivateKey('EdDSA', B14_PRIVATE, 'test-key-ed25519');
  const b14Public: VerificationKey = { algorithm: 'EdDSA', kid: 'test-key-ed25519', publicKey: B14_PUBLIC };

  it('the B.1.4 private key derives the B.1.4 public key', () => {
    expect(Buffer.from(b14Key.publicKey).toString('hex')).toBe(Buffer.from(B14_PUBLIC).toString('hex'));
  });

  it('builds the B.2.6 signature base byte for byte', () => {
    expect(httpSignatureBase(TEST_REQUEST, B26_COMPONENTS, { created: 1618884473, keyid: 'test-key-ed25519' })).toBe(B26_BASE);
  });

  it('signing reproduces the B.2.6 Signature-Input and Signature (Ed25519 is deterministic)', () => {
    const signed = signHttpMessage(TEST_REQUEST, {
      key: b14Key,
      label: 'sig-b26',
      components: B26_COMPONENTS,
      params: { created: 1618884473, keyid: 'test-key-ed25519' },
    });
    expect(signed.signatureInput).toBe(B26_SIGNATURE_INPUT);
    expect(signed.signature).toBe(B26_SIGNATURE);
  });

  it('the B.2.6 signature verifies with the B.1.4 public key, and not after a covered field changes', async () => {
    const message = {
      ...TEST_REQUEST,
      headers: { ...TEST_REQUEST.headers, 'Signature-Input': B26_SIGNATURE_INPUT, Signature: B26_SIGNATURE },
    };
    const parsed = readHttpSignature(message);
    expect(parsed.base).toBe(B26_BASE);
    expect(await verifyHttpSignatureWith(parsed, b14Public)).toBe(true);
    const altered = readHttpSignature({ ...message, headers: { ...message.headers, 'Content-Length': '19' } });
    expect(await verifyHttpSignatureWith(altered, b14Public)).toBe(false);
    expect(await verifyHttpSignatureWith(readHttpSignature({ ...message, method: 'PUT' }), b14Public)).toBe(false);
  });

  it('Content-Digest sha-256 of the test-request body (RFC 9421 §2.1 example)', async () => {
    expect(await contentDigest('{"hello": "world"}')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
  });
});

const NOW = 1_800_000_000_000;
const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
const stranger = generateKeyPair('EdDSA');

/** A request as the server sees it, from what the signer produced. */
async function signedRequest(
  init: { method?: string; url?: string; body?: string },
  signerOptions: { key?: typeof caller; clock?: () => number; ttlSeconds?: number } = {},
): Promise<VerifiableRequest> {
  const method = init.method ?? 'POST';
  const url = new URL(init.url ?? 'https://agent.example.com/a2a/jsonrpc');
  const signer = createHttpRequestSigner({
    key: signerOptions.key ?? caller,
    clock: signerOptions.clock ?? (() => NOW),
    ...(signerOptions.ttlSeconds ? { ttlSeconds: signerOptions.ttlSeconds } : {}),
  });
  const headers = await signer.sign({ method, url, body: init.body });
  return {
    method,
    authority: url.host,
    target: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: init.body === undefined ? (method === 'GET' ? undefined : new Uint8Array(0)) : new TextEncoder().encode(init.body),
  };
}

function verifier(overrides: { clock?: () => number; nonces?: ReturnType<typeof createNonceCache> } = {}) {
  const resolveKey = createCallerKeyResolver({ keys: [caller] });
  return createHttpSignatureVerifier({
    resolveKey,
    clock: overrides.clock ?? (() => NOW),
    ...(overrides.nonces ? { nonces: overrides.nonces } : {}),
  });
}

describe('the a2aplane request-signature profile', () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';

  it('signs @method @authority @path @query and content-digest with keyid = AgentID, alg ed25519, created/expires/nonce', async () => {
    const request = await signedRequest({ body });
    const input = (request.headers as Record<string, string>)['signature-input']!;
    expect(input).toMatch(
      new RegExp(
        `^a2a=\\("@method" "@authority" "@path" "@query" "content-digest"\\);created=1800000000;expires=1800000060;nonce="[A-Za-z0-9_-]{22}";alg="ed25519";keyid="${callerId}"$`,
      ),
    );
    expect((request.headers as Record<string, string>)['content-digest']).toBe(await contentDigest(body));
    expect(await verifier().verify(request)).toEqual({ ok: true, agentId: callerId, created: 1800000000, expires: 1800000060 });
  });

  it('a GET without a body needs no digest', async () => {
    const request = await signedRequest({ method: 'GET', url: 'https://agent.example.com/a2a/rest/tasks?pageSize=2' });
    expect((request.headers as Record<string, string>)['content-digest']).toBeUndefined();
    expect((await verifier().verify(request)).ok).toBe(true);
  });

  it('a replayed request is refused', async () => {
    const v = verifier();
    const request = await signedRequest({ body });
    expect((await v.verify(request)).ok).toBe(true);
    expect(await v.verify(request)).toMatchObject({ ok: false, reason: 'replayed' });
  });

  it('an altered body is refused (digest-mismatch); a forged digest for it breaks the signature', async () => {
    const request = await signedRequest({ body });
    const altered = body.replace('SendMessage', 'CancelTask');
    expect(await verifier().verify({ ...request, body: new TextEncoder().encode(altered) })).toMatchObject({
      ok: false,
      reason: 'digest-mismatch',
    });
    const forged = {
      ...request,
      body: new TextEncoder().encode(altered),
      headers: { ...request.headers, 'content-digest': await contentDigest(altered) },
    };
    expect(await verifier().verify(forged)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it.each([
    ['another method', { method: 'PUT' }],
    ['another path', { target: '/a2a/rest/message:send' }],
    ['another query', { target: '/a2a/jsonrpc?x=1' }],
    ['another authority', { authority: 'evil.example.com' }],
  ])('%s -> bad-signature', async (_name, change) => {
    const request = await signedRequest({ body });
    expect(await verifier().verify({ ...request, ...change })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('expired, too long a window, and not yet valid are refused; the clock skew is tolerated', async () => {
    const request = await signedRequest({ body });
    expect((await verifier({ clock: () => NOW + 85_000 }).verify(request)).ok).toBe(true); // 60 s + 25 s of skew
    expect(await verifier({ clock: () => NOW + 95_000 }).verify(request)).toMatchObject({ ok: false, reason: 'expired' });
    expect(await verifier({ clock: () => NOW - 60_000 }).verify(request)).toMatchObject({ ok: false, reason: 'not-yet-valid' });
    const long = await signedRequest({ body }, { ttlSeconds: 300 });
    expect((await verifier().verify(long)).ok).toBe(true);
  });

  it('with authorities set, a request signed for another server (relayed here) is refused', async () => {
    const strict = createHttpSignatureVerifier({
      resolveKey: createCallerKeyResolver({ keys: [caller] }),
      clock: () => NOW,
      authorities: ['agent.example.com'],
    });
    expect((await strict.verify(await signedRequest({ body }))).ok).toBe(true);
    const relayed = await signedRequest({ body, url: 'https://other.example.com/a2a/jsonrpc' });
    expect(await strict.verify(relayed)).toMatchObject({ ok: false, reason: 'wrong-authority' });
    expect((await verifier().verify(relayed)).ok).toBe(true); // without the list any authority goes
  });

  it('an unknown AgentID, or a resolver handing out a key of another AgentID -> unknown-key', async () => {
    expect(await verifier().verify(await signedRequest({ body }, { key: stranger }))).toMatchObject({ ok: false, reason: 'unknown-key' });
    const lying = createHttpSignatureVerifier({ resolveKey: () => stranger, clock: () => NOW });
    expect(await lying.verify(await signedRequest({ body }))).toMatchObject({ ok: false, reason: 'unknown-key' });
  });

  it('a stranger signing under the caller AgentID fails the signature check', async () => {
    const request = await signedRequest({ body }, { key: stranger });
    const headers = request.headers as Record<string, string>;
    const swapped = {
      ...request,
      headers: { ...headers, 'signature-input': headers['signature-input']!.replace(agentIdFromPublicKey(stranger.publicKey), callerId) },
    };
    expect(await verifier().verify(swapped)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('unsigned, half-signed, malformed and incomplete requests', async () => {
    const v = verifier();
    const request = await signedRequest({ body });
    const headers = request.headers as Record<string, string>;
    expect(await v.verify({ ...request, headers: { 'content-type': 'application/json' } })).toMatchObject({
      ok: false,
      reason: 'unsigned',
    });
    expect(await v.verify({ ...request, headers: { ...headers, signature: undefined } })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await v.verify({ ...request, headers: { ...headers, 'signature-input': 'a2a=(' } })).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(await v.verify({ ...request, body: undefined })).toMatchObject({ ok: false, reason: 'incomplete' });
    const noDigest = { ...headers, 'signature-input': headers['signature-input']!.replace(' "content-digest"', '') };
    expect(await v.verify({ ...request, headers: noDigest })).toMatchObject({ ok: false, reason: 'incomplete' });
    const noNonce = { ...headers, 'signature-input': headers['signature-input']!.replace(/;nonce="[^"]*"/, '') };
    expect(await v.verify({ ...request, headers: noNonce })).toMatchObject({ ok: false, reason: 'incomplete' });
    const rsa = { ...headers, 'signature-input': headers['signature-input']!.replace('alg="ed25519"', 'alg="rsa-v1_5-sha256"') };
    expect(await v.verify({ ...request, headers: rsa })).toMatchObject({ ok: false, reason: 'unsupported' });
    const named = { ...headers, 'signature-input': headers['signature-input']!.replace(`keyid="${callerId}"`, 'keyid="test-key-ed25519"') };
    expect(await v.verify({ ...request, headers: named })).toMatchObject({ ok: false, reason: 'unsupported' });
  });

  it('the nonce cache forgets expired nonces and refuses new ones when full (fails closed)', () => {
    let now = 0;
    const cache = createNonceCache({ maxEntries: 2, clock: () => now });
    expect(cache.add('a', 1000)).toBe(true);
    expect(cache.add('a', 1000)).toBe(false);
    expect(cache.add('b', 2000)).toBe(true);
    expect(cache.add('c', 2000)).toBe(false);
    now = 1500;
    expect(cache.add('c', 3000)).toBe(true);
    expect(cache.add('a', 3000)).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('createCallerKeyResolver: pinned JWKs are found by AgentID; other keys are refused', async () => {
    const resolve = createCallerKeyResolver({ keys: [exportPublicJwk(caller)] });
    expect((await resolve(callerId))?.publicKey).toEqual(caller.publicKey);
    expect(await resolve(agentIdFromPublicKey(stranger.publicKey))).toBeUndefined();
    expect(await resolve('not-an-agent-id')).toBeUndefined();
    expect(() => createCallerKeyResolver({ keys: [generateKeyPair('ES256')] })).toThrow(TypeError);
  });
});
