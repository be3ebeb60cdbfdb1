import { createHash, createPrivateKey, sign } from 'node:crypto';
import {
  agentIdFromPublicKey,
  encodeBase64Url,
  exportPrivateJwk,
  HTTP_SIGNATURE_COMPONENTS,
  HTTP_SIGNATURE_LABEL,
  httpSignatureBase,
  type KeyPair,
  keyPairFromPrivateKey,
} from '@a2aplane/a2a-identity';

/** The calling agent of the verified-server runs: a fixed key the server pins (not a secret: bench only). */
export const BENCH_CALLER: KeyPair = keyPairFromPrivateKey('EdDSA', new Uint8Array(32).fill(7));
export const BENCH_CALLER_ID = agentIdFromPublicKey(BENCH_CALLER.publicKey);

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
): { fill(count: number): void; next(): SignedRequest } {
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
    fill(count) {
      for (let i = 0; i < count; i++) pool.push(make());
    },
    // Past the pool, sign on the fly rather than replay (a replay is refused).
    next: () => pool.pop() ?? make(),
  };
}
