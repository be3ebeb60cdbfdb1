import { createHash, createPrivateKey, sign } from 'node:crypto';
import {
  agentIdFromPublicKey,
  createHttpRequestSigner,
  encodeBase64Url,
  exportPrivateJwk,
  HTTP_SIGNATURE_COMPONENTS,
  HTTP_SIGNATURE_LABEL,
  httpSignatureBase,
  type KeyPair,
  keyPairFromPrivateKey,
  toVerificationKey,
} from '@a2aplane/a2a-identity';

/** The calling agent of the verified-server runs: a fixed key the server pins (not a secret: bench only). */
export const BENCH_CALLER: KeyPair = keyPairFromPrivateKey('EdDSA', new Uint8Array(32).fill(7));
export const BENCH_CALLER_ID = agentIdFromPublicKey(BENCH_CALLER.publicKey);
/** The verified server's own agent key: the fast path's request key is derived from it and the caller's. */
export const BENCH_SERVER: KeyPair = keyPairFromPrivateKey('EdDSA', new Uint8Array(32).fill(9));

/** One signed request of the pool: its body (a fresh messageId) and the signature headers over it. */
export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * A source of signed requests to one URL, each with its own body (a fresh messageId: a repeated one
 * would be answered from the stored task) and nonce, signed as `createHttpRequestSigner` signs. They
 * are made ahead of the measured run (the signature base comes from a2a-identity; the Ed25519 math
 * and the RFC 9530 digest from node:crypto, faster than the portable code), so the load generator
 * does no signing while it measures.
 */
export function createSignedRequestPool(
  url: string,
  bodyOf: (messageId: string) => string,
): { fill(count: number): Promise<void>; next(): SignedRequest } {
  const target = new URL(url);
  const privateKey = createPrivateKey({ key: exportPrivateJwk(BENCH_CALLER) as never, format: 'jwk' });
  const components = [...HTTP_SIGNATURE_COMPONENTS, 'content-digest'];
  const pool: SignedRequest[] = [];
  let counter = 0;
  const make = (): SignedRequest => {
    const body = bodyOf(`bench-signed-${counter}`);
    const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    const created = Math.floor(Date.now() / 1000);
    const nonce = encodeBase64Url(new TextEncoder().encode(`bench-nonce-${(counter++).toString().padStart(10, '0')}`));
    const params = { created, expires: created + 60, nonce, alg: 'ed25519', keyid: BENCH_CALLER_ID };
    const base = httpSignatureBase(
      { method: 'POST', authority: target.host, target: target.pathname + target.search, headers: { 'content-digest': digest } },
      components,
      params,
    );
    const signature = sign(null, Buffer.from(base), privateKey).toString('base64');
    const input = base.slice(base.lastIndexOf('"@signature-params": ') + '"@signature-params": '.length);
    return {
      body,
      headers: {
        'content-digest': digest,
        'signature-input': `${HTTP_SIGNATURE_LABEL}=${input}`,
        signature: `${HTTP_SIGNATURE_LABEL}=:${signature}:`,
      },
    };
  };
  return {
    async fill(count) {
      for (let i = 0; i < count; i++) pool.push(make());
    },
    // Past the pool, sign on the fly rather than replay (a replay is refused).
    next: () => pool.pop() ?? make(),
  };
}

/**
 * The same for the fast path (decision 0028): requests signed `alg="hmac-sha256"` by
 * `createHttpRequestSigner({ key, serverKey })`, as a client that knows the server's key signs.
 * Past the pool it falls back to Ed25519-signed requests (the server accepts both); the pool is
 * sized so a run does not get there.
 */
export function createHmacSignedRequestPool(
  url: string,
  bodyOf: (messageId: string) => string,
): { fill(count: number): Promise<void>; next(): SignedRequest } {
  const signer = createHttpRequestSigner({ key: BENCH_CALLER, serverKey: toVerificationKey(BENCH_SERVER) });
  const fallback = createSignedRequestPool(url, (id) => bodyOf(`fallback-${id}`));
  const pool: SignedRequest[] = [];
  let counter = 0;
  return {
    async fill(count) {
      for (let i = 0; i < count; i++) {
        const body = bodyOf(`bench-hmac-${counter++}`);
        pool.push({ body, headers: await signer.sign({ method: 'POST', url, body }) });
      }
    },
    next: () => pool.pop() ?? fallback.next(),
  };
}
