import { ed25519, x25519 } from '@noble/curves/ed25519';
import { hkdf } from '@noble/hashes/hkdf';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  contentDigest,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  type createNonceCache,
  exportPublicJwk,
  generateKeyPair,
  type HttpSignatureMessage,
  httpSignatureBase,
  keyPairFromPrivateKey,
  readHttpSignature,
  signHttpMessage,
  toVerificationKey,
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
/**
 * A request as the server sees it, from what the signer produced; `authorities` as the A2A server
 * passes them (its card's interface URLs), here the one the request was sent to unless given.
 */
async function signedRequest(
  init: { method?: string; url?: string; body?: string; authorities?: string[] },
  signerOptions: { key?: typeof caller; clock?: () => number; ttlSeconds?: number; serverKey?: VerificationKey } = {},
): Promise<VerifiableRequest> {
  const method = init.method ?? 'POST';
  const url = new URL(init.url ?? 'https://agent.example.com/a2a/jsonrpc');
  const signer = createHttpRequestSigner({
    key: signerOptions.key ?? caller,
    clock: signerOptions.clock ?? (() => NOW),
    ...(signerOptions.ttlSeconds ? { ttlSeconds: signerOptions.ttlSeconds } : {}),
    ...(signerOptions.serverKey ? { serverKey: signerOptions.serverKey } : {}),
  });
  const headers = await signer.sign({ method, url, body: init.body });
  return {
    method,
    authority: url.host,
    target: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: init.body === undefined ? (method === 'GET' ? undefined : new Uint8Array(0)) : new TextEncoder().encode(init.body),
    authorities: init.authorities ?? [url.host],
  };
}

function verifier(
  overrides: {
    clock?: () => number;
    nonces?: ReturnType<typeof createNonceCache>;
    ownKey?: typeof caller;
    authorities?: string[] | 'any';
    sha256?: (data: Uint8Array) => Uint8Array;
    sha256Base64?: (data: Uint8Array) => string;
  } = {},
) {
  const resolveKey = createCallerKeyResolver({ keys: [caller] });
  return createHttpSignatureVerifier({
    resolveKey,
    clock: overrides.clock ?? (() => NOW),
    ...(overrides.sha256 ? { sha256: overrides.sha256 } : {}),
    ...(overrides.sha256Base64 ? { sha256Base64: overrides.sha256Base64 } : {}),
    ...(overrides.nonces ? { nonces: overrides.nonces } : {}),
    ...(overrides.ownKey ? { ownKey: overrides.ownKey } : {}),
    ...(overrides.authorities ? { authorities: overrides.authorities } : {}),
  });
}

describe('the a2aplane request-signature profile', () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';

  it('signs @method @authority @path @query and content-digest with keyid = AgentID, alg ed25519, created/expires/nonce', async () => {
    const request = await signedRequest({ body });
    const input = (request.headers as Record<string, string>)['signature-input']!;
    expect(input).toMatch(
      new RegExp(
        `^a2a=\\("@method" "@authority" "@path" "@query" "content-digest"\\);created=1800000000;expires=1800000060;nonce="[A-Za-z0-9_-]{16}";alg="ed25519";keyid="${callerId}"$`,
      ),
    );
    expect((request.headers as Record<string, string>)['content-digest']).toBe(await contentDigest(body));
    expect(await verifier().verify(request)).toEqual({
      ok: true,
      agentId: callerId,
      created: 1800000000,
      expires: 1800000060,
      alg: 'ed25519',
    });
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
    // A server that also answers to evil.example.com: the signature still names agent.example.com.
    ['another authority', { authority: 'evil.example.com', authorities: ['agent.example.com', 'evil.example.com'] }],
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

  it('by default a request signed for another server (relayed here) is refused: the authorities come from the server', async () => {
    // The receiving server answers to agent.example.com (its card); the caller signed for other.example.com.
    const relayed = await signedRequest({ body, url: 'https://other.example.com/a2a/jsonrpc', authorities: ['agent.example.com'] });
    expect(await verifier().verify(relayed)).toMatchObject({ ok: false, reason: 'wrong-authority' });
    expect((await verifier().verify(await signedRequest({ body }))).ok).toBe(true);
    // Neither the option nor the server's own names: nothing to check against, so refused (fail closed).
    const { authorities: _, ...bare } = await signedRequest({ body });
    expect(await verifier().verify(bare)).toMatchObject({ ok: false, reason: 'wrong-authority' });
  });

  it('the authorities option replaces the server-given names; loosening is the explicit authorities: "any"', async () => {
    const relayed = await signedRequest({ body, url: 'https://other.example.com/a2a/jsonrpc', authorities: ['agent.example.com'] });
    expect(await verifier({ authorities: ['agent.example.com'] }).verify(relayed)).toMatchObject({ ok: false, reason: 'wrong-authority' });
    expect((await verifier({ authorities: ['OTHER.example.com'] }).verify(relayed)).ok).toBe(true);
    expect((await verifier({ authorities: 'any' }).verify(relayed)).ok).toBe(true);
    const { authorities: _, ...bare } = relayed;
    expect((await verifier({ authorities: 'any' }).verify(bare)).ok).toBe(true);
    expect(() => createHttpSignatureVerifier({ resolveKey: () => undefined, authorities: 'all' as never })).toThrow(TypeError);
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

  it('createCallerKeyResolver: pinned JWKs are found by AgentID; other keys are refused', async () => {
    const resolve = createCallerKeyResolver({ keys: [exportPublicJwk(caller)] });
    expect((await resolve(callerId))?.publicKey).toEqual(caller.publicKey);
    expect(await resolve(agentIdFromPublicKey(stranger.publicKey))).toBeUndefined();
    expect(await resolve('not-an-agent-id')).toBeUndefined();
    expect(() => createCallerKeyResolver({ keys: [generateKeyPair('ES256')] })).toThrow(TypeError);
  });

  it('createCallerKeyResolver answers a pinned key at once (no promise, no event-loop turn); a card lookup with a promise', async () => {
    const resolve = createCallerKeyResolver({ keys: [caller], cardUrlOf: () => undefined });
    const pinned = resolve(callerId);
    expect(pinned).not.toBeInstanceOf(Promise);
    expect((pinned as VerificationKey).publicKey).toEqual(caller.publicKey);
    const other = resolve(agentIdFromPublicKey(stranger.publicKey));
    expect(other).toBeInstanceOf(Promise);
    expect(await other).toBeUndefined();
    expect(createCallerKeyResolver({ keys: [caller] })(agentIdFromPublicKey(stranger.publicKey))).toBeUndefined();
  });
});

/** A GET signed by hand over the profile's components with `sign` (for keys the signer would not use). */
function handSigned(
  message: HttpSignatureMessage,
  params: { keyid: string; alg: string; nonce: string },
  sign: (base: Uint8Array) => Uint8Array,
): VerifiableRequest {
  const base = httpSignatureBase(message, ['@method', '@authority', '@path', '@query'], {
    created: NOW / 1000,
    expires: NOW / 1000 + 60,
    ...params,
  });
  const input = base.slice(base.lastIndexOf('"@signature-params": ') + '"@signature-params": '.length);
  const signature = Buffer.from(sign(new TextEncoder().encode(base))).toString('base64');
  return { ...message, headers: { 'signature-input': `a2a=${input}`, signature: `a2a=:${signature}:` } };
}

describe('the fast path: hmac-sha256 under a request key both agents derive (decision 0028)', () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';
  const server = generateKeyPair('EdDSA');
  const serverKey = toVerificationKey(server);

  it('a caller that knows the server key signs alg="hmac-sha256"; the server with its own key verifies it', async () => {
    const request = await signedRequest({ body }, { serverKey });
    const headers = request.headers as Record<string, string>;
    expect(headers['signature-input']).toMatch(/;alg="hmac-sha256";keyid="[0-9a-f]{64}"$/);
    expect(headers.signature).toMatch(/^a2a=:[A-Za-z0-9+/]{43}=:$/); // 32 bytes
    expect(await verifier({ ownKey: server }).verify(request)).toEqual({
      ok: true,
      agentId: callerId,
      created: 1800000000,
      expires: 1800000060,
      alg: 'hmac-sha256',
    });
    // Plain Ed25519 callers keep working next to it.
    expect(await verifier({ ownKey: server }).verify(await signedRequest({ body }))).toMatchObject({ ok: true, alg: 'ed25519' });
  });

  it("the signer's own form and any other serialization of the same fields verify alike (the verifier reads the first without the general parser)", async () => {
    const padded = (request: VerifiableRequest, edit: (input: string) => string = (input) => input): VerifiableRequest => {
      const headers = request.headers as Record<string, string>;
      // Leading whitespace is allowed and stripped: the same field, read by the general parser.
      return {
        ...request,
        headers: { ...headers, 'signature-input': ` ${edit(headers['signature-input']!)}`, signature: ` ${headers.signature}` },
      };
    };
    const edited = (request: VerifiableRequest, edit: (input: string) => string): VerifiableRequest => {
      const headers = request.headers as Record<string, string>;
      return { ...request, headers: { ...headers, 'signature-input': edit(headers['signature-input']!) } };
    };
    for (const options of [{ serverKey }, {}]) {
      for (const init of [{ body }, { method: 'GET' as const, url: 'https://agent.example.com/a2a/rest/tasks?pageSize=2' }]) {
        const request = await signedRequest(init, options);
        const own = await verifier({ ownKey: server }).verify(request);
        expect(own).toMatchObject({ ok: true });
        expect(await verifier({ ownKey: server }).verify(padded(request))).toEqual(own);
        // Changed fields are refused for the same reason either way.
        const changes: Array<(input: string) => string> = [
          (input) => input.replace(/keyid="([0-9a-f]+)"/, (_, id: string) => `keyid="${id.toUpperCase()}"`),
          (input) => input.replace(/nonce="[^"]*"/, 'nonce="short"'),
          (input) => input.replace(/created=\d+/, 'created=1800000100'),
          (input) => input.replace(/alg="[^"]*"/, 'alg="rsa-pss-sha512"'),
          (input) => input.replace('"@method" ', ''),
        ];
        for (const change of changes) {
          const direct = await verifier({ ownKey: server }).verify(edited(request, change));
          expect(direct.ok).toBe(false);
          expect(await verifier({ ownKey: server }).verify(padded(request, change))).toEqual(direct);
        }
      }
    }
  });

  it('a server without its own key refuses hmac-sha256 (unsupported)', async () => {
    expect(await verifier().verify(await signedRequest({ body }, { serverKey }))).toMatchObject({ ok: false, reason: 'unsupported' });
  });

  it('replayed, body-altered and retargeted fast-path requests are refused', async () => {
    const v = verifier({ ownKey: server });
    const request = await signedRequest({ body }, { serverKey });
    expect((await v.verify(request)).ok).toBe(true);
    expect(await v.verify(request)).toMatchObject({ ok: false, reason: 'replayed' });
    const fresh = await signedRequest({ body }, { serverKey });
    const altered = new TextEncoder().encode(body.replace('SendMessage', 'CancelTask'));
    expect(await v.verify({ ...fresh, body: altered })).toMatchObject({ ok: false, reason: 'digest-mismatch' });
    expect(await v.verify({ ...fresh, target: '/a2a/rest/message:send' })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('with sha256Base64 the signer-form Content-Digest is compared as text; a mismatch is decided on the bytes (decision 0054)', async () => {
    const { createHash } = await import('node:crypto');
    const calls = { text: 0, bytes: 0 };
    const withText = (lie: boolean) =>
      verifier({
        ownKey: server,
        sha256Base64: (data) => {
          calls.text++;
          return lie ? 'A'.repeat(43) + '=' : createHash('sha256').update(data).digest('base64');
        },
        sha256: (data) => {
          calls.bytes++;
          return Uint8Array.from(createHash('sha256').update(data).digest());
        },
      });
    // Equal text: accepted without the byte digest.
    expect(await withText(false).verify(await signedRequest({ body }, { serverKey }))).toMatchObject({ ok: true });
    expect(calls).toEqual({ text: 1, bytes: 0 });
    // An altered body: the text differs, the bytes refuse it.
    const altered = new TextEncoder().encode(body.replace('SendMessage', 'CancelTask'));
    const fresh = await signedRequest({ body }, { serverKey });
    expect(await withText(false).verify({ ...fresh, body: altered })).toMatchObject({ ok: false, reason: 'digest-mismatch' });
    expect(calls).toEqual({ text: 2, bytes: 1 });
    // Text that does not match never refuses by itself: the bytes decide (here: the right body).
    expect(await withText(true).verify(await signedRequest({ body }, { serverKey }))).toMatchObject({ ok: true });
    expect(calls).toEqual({ text: 3, bytes: 2 });
  });

  it('relayed to another server that trusts the same caller, it does not verify: the key is bound to the server key', async () => {
    const request = await signedRequest({ body }, { serverKey });
    const other = generateKeyPair('EdDSA');
    expect(await verifier({ ownKey: other }).verify(request)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('the request key is HKDF-SHA256(X25519 of the two keys, the label, "caller\\nserver\\nauthority"): bound to the authority', async () => {
    // Made by hand from the decision's formula, as another implementation would.
    const requestKey = (authority: string) =>
      hkdf(
        sha256,
        x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(caller.privateKey), ed25519.utils.toMontgomery(server.publicKey)),
        new TextEncoder().encode('a2aplane/rfc9421/hmac-sha256/v1'),
        new TextEncoder().encode(`${callerId}\n${agentIdFromPublicKey(server.publicKey)}\n${authority}`),
        32,
      );
    const v = verifier({ ownKey: server, authorities: ['a.example.com', 'b.example.com'] });
    const made = (authority: string, key: Uint8Array, nonce: string) =>
      handSigned(
        { method: 'GET', authority, target: '/a2a/rest/tasks', headers: {} },
        { keyid: callerId, alg: 'hmac-sha256', nonce },
        (base) => hmac(sha256, key, base),
      );
    expect((await v.verify(made('b.example.com', requestKey('b.example.com'), 'nonce-000000000001'))).ok).toBe(true);
    // One agent key reached under two names: a request key made for a.example.com does not sign for b.example.com.
    expect(await v.verify(made('b.example.com', requestKey('a.example.com'), 'nonce-000000000002'))).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('a stranger cannot make a fast-path signature under the caller AgentID (it derives another key)', async () => {
    const request = await signedRequest({ body }, { key: stranger, serverKey });
    const headers = request.headers as Record<string, string>;
    const swapped = {
      ...request,
      headers: { ...headers, 'signature-input': headers['signature-input']!.replace(agentIdFromPublicKey(stranger.publicKey), callerId) },
    };
    expect(await verifier({ ownKey: server }).verify(swapped)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('with maxRequestKeys 1 the cache evicts and re-derives: alternating authorities keep verifying', async () => {
    const v = createHttpSignatureVerifier({
      resolveKey: createCallerKeyResolver({ keys: [caller] }),
      ownKey: server,
      maxRequestKeys: 1,
      clock: () => NOW,
      authorities: ['a.example.com', 'b.example.com'],
    });
    for (const host of ['a.example.com', 'b.example.com', 'a.example.com']) {
      const request = await signedRequest({ body, url: `https://${host}/a2a/jsonrpc` }, { serverKey });
      expect((await v.verify(request)).ok, host).toBe(true);
    }
    expect(() => createHttpSignatureVerifier({ resolveKey: () => undefined, maxRequestKeys: 0 })).toThrow(RangeError);
  });

  it('a small-order caller key is refused: its agreement would be predictable', async () => {
    const weak = { algorithm: 'EdDSA' as const, kid: 'weak', publicKey: ed25519.Point.ZERO.toBytes() };
    const weakId = agentIdFromPublicKey(weak.publicKey);
    const v = createHttpSignatureVerifier({ resolveKey: () => weak, ownKey: server, clock: () => NOW, authorities: 'any' });
    // What anyone could compute if the all-zero agreement were accepted.
    const key = hkdf(
      sha256,
      new Uint8Array(32),
      new TextEncoder().encode('a2aplane/rfc9421/hmac-sha256/v1'),
      new TextEncoder().encode(`${weakId}\n${agentIdFromPublicKey(server.publicKey)}\nagent.example.com`),
      32,
    );
    const request = handSigned(
      { method: 'GET', authority: 'agent.example.com', target: '/a2a/rest/tasks', headers: {} },
      { keyid: weakId, alg: 'hmac-sha256', nonce: 'abcdefghijklmnopqrstuv' },
      (base) => hmac(sha256, key, base),
    );
    expect(await v.verify(request)).toMatchObject({ ok: false, reason: 'unknown-key' });
    await expect(
      createHttpRequestSigner({ key: caller, serverKey: weak }).sign({ method: 'GET', url: 'https://a.example/' }),
    ).rejects.toThrow();
  });

  it('readHttpSignature reads a canonical field as the general parser does (same components, parameters, base)', async () => {
    const request = await signedRequest({ body }, { serverKey });
    const headers = request.headers as Record<string, string>;
    const fast = readHttpSignature(request);
    // Leading whitespace (allowed, stripped by the parser) sends the same field down the general path.
    const general = readHttpSignature({
      ...request,
      headers: { ...headers, 'signature-input': ` ${headers['signature-input']}`, signature: ` ${headers.signature}` },
    });
    expect(fast).toEqual(general);
    // Not canonical (a leading zero): the general parser, and the base holds the canonical form.
    const padded = readHttpSignature({
      ...request,
      headers: { ...headers, 'signature-input': headers['signature-input']!.replace('created=', 'created=0') },
    });
    expect(padded.base).toBe(fast.base);
    // A repeated parameter: the general parser's reading (the last value wins), not a partial one.
    const repeated = readHttpSignature({
      ...request,
      headers: { ...headers, 'signature-input': `${headers['signature-input']};alg="ed25519"` },
    });
    expect(repeated.params.get('alg')).toBe('ed25519');
  });
});
