// BENCH ONLY — a reference row, never a product path (like raw fetch in the client suite).
// The floor of a verified caller (issue 16, decision 0054): an authenticator that does only the
// work no RFC 9421 verifier can skip, and accepts every request. It reads the three signature
// headers, hashes the body (SHA-256, node:crypto) and compares it with `content-digest`, writes a
// signature base of the real size (the profile's six lines from the request's own values) and
// computes its HMAC-SHA256 (two one-shot SHA-256 over precomputed pads: the cheapest HMAC on this
// stack, decision 0049), decodes the signature and compares in constant time. It does not parse
// `Signature-Input`, check a window, a nonce, a key or an authority, and it accepts whatever the
// comparisons say: the cost of a verifier that checked nothing but did the hashing.
import { hash } from 'node:crypto';

const BLOCK = 64;
const LABEL = 'a2a='.length;
const DIGEST_PREFIX = 'sha-256=:'.length;

/**
 * @param {{ agentId: string, key: Uint8Array }} options the principal's AgentID and a 32-byte MAC key
 */
export function createFloorAuthenticator({ agentId, key }) {
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i] ^= key[i];
    outer[i] ^= key[i];
  }
  const scratch = Buffer.allocUnsafe(BLOCK + 4096);
  inner.copy(scratch, 0);
  const empty = new Uint8Array(0);
  // What the comparisons said: the floor accepts anyway, the test reads them.
  const counts = { digestMismatch: 0, macMismatch: 0 };
  const authenticate = (request) => {
    const headers = request.headers;
    const input = headers['signature-input'] ?? '';
    const signature = headers.signature ?? '';
    const digest = headers['content-digest'] ?? '';
    // The body's digest, compared with the header's (base64 of 32 bytes is 44 characters).
    const computed = hash('sha256', request.body ?? empty, 'base64');
    if (digest.length !== DIGEST_PREFIX + 45 || !digest.startsWith(computed, DIGEST_PREFIX)) counts.digestMismatch++;
    // A base of the real size: the profile's lines, from the request's values as they come.
    const base = `"@method": ${request.method}\n"@authority": ${headers.host}\n"@path": ${request.target}\n"@query": ?\n"content-digest": ${digest}\n"@signature-params": ${input.slice(LABEL)}`;
    const length = scratch.latin1Write(base, BLOCK);
    // Digests as latin1 strings: Node 20 takes a slow path for the 'buffer' encoding (decision 0049).
    outer.latin1Write(hash('sha256', scratch.subarray(0, BLOCK + length), 'latin1'), BLOCK);
    const mac = hash('sha256', outer, 'latin1');
    const given = Buffer.from(signature.slice(LABEL + 1, -1), 'base64');
    // Constant time: every byte is compared, whatever the first difference.
    let difference = given.length ^ 32;
    for (let i = 0; i < 32; i++) difference |= mac.charCodeAt(i) ^ (given[i] ?? 0);
    if (difference !== 0) counts.macMismatch++;
    return Promise.resolve({ id: agentId, scheme: 'httpSignature', agentId, claims: { created: 0, expires: 0, alg: 'hmac-sha256' } });
  };
  authenticate.counts = counts;
  return authenticate;
}
