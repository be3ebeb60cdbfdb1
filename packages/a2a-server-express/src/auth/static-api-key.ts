import { timingSafeEqualString } from './timing-safe.js';
import type { ApiKeyVerifier, Principal } from './types.js';

/**
 * A verifier for a fixed set of keys (API keys or static bearer tokens). Every key is compared
 * in constant time and the loop never exits early, so timing does not reveal which key matched.
 */
export function createStaticApiKeyVerifier(keys: Record<string, Principal>): ApiKeyVerifier {
  if (typeof keys !== 'object' || keys === null) {
    throw new TypeError(`expected a record of key -> Principal, got ${keys === null ? 'null' : typeof keys}`);
  }
  const entries = Object.entries(keys).map(([key, principal]) => {
    if (key.length === 0) throw new RangeError('expected non-empty API keys, got an empty string');
    return [key, principal] as const;
  });
  return {
    verify(candidate: string, schemeName: string): Principal | undefined {
      let found: Principal | undefined;
      for (const [key, principal] of entries) {
        if (timingSafeEqualString(candidate, key) && found === undefined) found = principal;
      }
      return found === undefined ? undefined : { ...found, scheme: schemeName };
    },
  };
}
