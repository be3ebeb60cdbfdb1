import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFloorAuthenticator } from '../src/lib/floor-authenticator.mjs';

const KEY = new Uint8Array(32).fill(1);
const AGENT_ID = 'a'.repeat(64);
const INPUT = `("@method" "@authority" "@path" "@query" "content-digest");created=1;expires=61;nonce="bm9uY2Utbm9uY2Utbm9uY2U";alg="hmac-sha256";keyid="${AGENT_ID}"`;

/** A request as the floor sees it, its MAC over the profile's base under `KEY` (as an RFC 9421 verifier computes it). */
function signed(body: string) {
  const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  const base = `"@method": POST\n"@authority": 127.0.0.1:4000\n"@path": /a2a/jsonrpc\n"@query": ?\n"content-digest": ${digest}\n"@signature-params": ${INPUT}`;
  const mac = createHmac('sha256', KEY).update(base).digest('base64');
  return {
    method: 'POST',
    target: '/a2a/jsonrpc',
    query: new URLSearchParams(),
    body: new TextEncoder().encode(body),
    headers: { host: '127.0.0.1:4000', 'content-digest': digest, 'signature-input': `a2a=${INPUT}`, signature: `a2a=:${mac}:` },
  };
}

describe('the verifier floor (bench-only reference row)', () => {
  it('hashes the body and MACs the base: a matching request counts no mismatch', async () => {
    const authenticate = createFloorAuthenticator({ agentId: AGENT_ID, key: KEY });
    const principal = await authenticate(signed('{"hello":1}'));
    expect(principal).toMatchObject({ id: AGENT_ID, agentId: AGENT_ID, scheme: 'httpSignature' });
    expect(authenticate.counts).toEqual({ digestMismatch: 0, macMismatch: 0 });
  });

  it('sees an altered body and an altered signature, and accepts them all the same', async () => {
    const authenticate = createFloorAuthenticator({ agentId: AGENT_ID, key: KEY });
    const altered = { ...signed('{"hello":1}'), body: new TextEncoder().encode('{"hello":2}') };
    await expect(authenticate(altered)).resolves.toMatchObject({ agentId: AGENT_ID });
    const request = signed('{"hello":1}');
    const forged = { ...request, headers: { ...request.headers, signature: `a2a=:${Buffer.alloc(32).toString('base64')}:` } };
    await expect(authenticate(forged)).resolves.toMatchObject({ agentId: AGENT_ID });
    expect(authenticate.counts).toEqual({ digestMismatch: 1, macMismatch: 1 });
  });
});
