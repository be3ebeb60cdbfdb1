import { createPrivateKey, sign } from 'node:crypto';
import {
  agentIdFromPublicKey,
  contentDigest,
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

/**
 * A source of RFC 9421 signature headers for one request (same method, URL and body), each with
 * its own nonce, as `createHttpRequestSigner` writes them. They are made ahead of the measured run
 * (the signature base comes from a2a-identity; the Ed25519 math from node:crypto, which is faster
 * than the library's portable signer), so the load generator does no signing while it measures.
 */
export async function createSignedHeaderPool(
  url: string,
  body: string,
): Promise<{ fill(count: number): void; next(): Record<string, string> }> {
  const target = new URL(url);
  const digest = await contentDigest(body);
  const privateKey = createPrivateKey({ key: exportPrivateJwk(BENCH_CALLER) as never, format: 'jwk' });
  const components = [...HTTP_SIGNATURE_COMPONENTS, 'content-digest'];
  const pool: Array<Record<string, string>> = [];
  let counter = 0;
  const make = (): Record<string, string> => {
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
      'content-digest': digest,
      'signature-input': `${HTTP_SIGNATURE_LABEL}=${input}`,
      signature: `${HTTP_SIGNATURE_LABEL}=:${signature}:`,
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
