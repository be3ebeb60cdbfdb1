import { createHash, timingSafeEqual } from 'node:crypto';

/** Operator credentials by operator name (decision 0070). */
export type OperatorTokens = Readonly<Record<string, string>>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Returns the operator a `Bearer` header belongs to, or `undefined`. Tokens are compared as
 * SHA-256 digests with `timingSafeEqual`, all of them every time: no early exit, no length leak.
 */
export function createOperatorAuthenticator(tokens: OperatorTokens): (authorization: string | undefined) => string | undefined {
  if (typeof tokens !== 'object' || tokens === null) throw new TypeError(`expected operatorTokens to be an object, got ${String(tokens)}`);
  const entries = Object.entries(tokens).map(([name, token]) => {
    if (typeof token !== 'string' || token.length < 16) {
      throw new RangeError(`expected the operator token of ${JSON.stringify(name)} to be a string of at least 16 characters`);
    }
    return { name, digest: digest(token) };
  });
  return (authorization) => {
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    let found: string | undefined;
    for (const entry of entries) if (timingSafeEqual(entry.digest, presented) && match) found ??= entry.name;
    return found;
  };
}
