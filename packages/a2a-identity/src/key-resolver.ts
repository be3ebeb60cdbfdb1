import { describeValue } from '@a2aplane/a2a-types';
import type { KeyPair, PublicJwk, VerificationKey } from './key-types.js';
import { weakEd25519PublicKeyReason } from './ed25519-public-key.js';
import { readPublicJwk } from './public-jwk.js';

/** The protected-header fields a resolver can use to find the signing key. */
export interface KeyResolverHeader {
  kid?: string;
  jku?: string;
  alg: string;
}

/**
 * Finds candidate public keys for one signature. Trust lives here: return only keys you trust to
 * speak for the card. Returning no keys means "untrusted". Implementations should not throw; the
 * verifier treats a rejection as "no keys".
 */
export interface KeyResolver {
  resolve(header: KeyResolverHeader): Promise<VerificationKey[]>;
}

/**
 * A fixed trusted key store (spec §8.4.3 "trusted key store"). Keys are matched by `kid`; a header
 * without `kid` gets every pinned key. The algorithm is checked by the verifier, not here, so an
 * alg/key mismatch is reported as such rather than as an unknown key.
 */
export function createPinnedKeyResolver(keys: Array<VerificationKey | KeyPair | PublicJwk>): KeyResolver {
  if (!Array.isArray(keys)) throw new TypeError(`expected an array of keys, got ${typeof keys}`);
  const pinned: VerificationKey[] = keys.map((key, index) => {
    if (typeof key === 'object' && key !== null && 'publicKey' in key && key.publicKey instanceof Uint8Array) {
      const weak = key.algorithm === 'EdDSA' ? weakEd25519PublicKeyReason(key.publicKey) : undefined;
      if (weak !== undefined) throw new TypeError(`expected a usable key at index ${index}, got one where ${weak}`);
      // Public part only: a pinned KeyPair's private key is never kept here.
      return { algorithm: key.algorithm, kid: key.kid, publicKey: key.publicKey };
    }
    const imported = readPublicJwk(key);
    if (!imported.ok) throw new TypeError(`expected a key or public JWK at index ${index}, got ${imported.reason}`);
    return imported.key;
  });
  return {
    async resolve(header) {
      return header.kid === undefined ? [...pinned] : pinned.filter((key) => key.kid === header.kid);
    },
  };
}

export interface JwksKeyResolverOptions {
  /** Injected for tests and non-global runtimes; defaults to `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Allow `http://127.0.0.1`, `http://[::1]` and `http://localhost` `jku` URLs (development only). */
  allowInsecureLoopback?: boolean;
  /** How long a fetched JWKS is reused. Default 300000 (5 minutes, ADR-159 discovery cache TTL). */
  ttlMs?: number;
  clock?: () => number;
  /**
   * Only fetch `jku` URLs starting with one of these prefixes (e.g. the agent's own origin + `/`).
   * Without it the resolver trusts any HTTPS JWKS the card points to, which proves only that the
   * card's publisher controls that URL: pair it with an AgentID allowlist or set prefixes.
   */
  allowedJkuPrefixes?: readonly string[];
  /** Per-fetch timeout. Default 5000 ms. */
  timeoutMs?: number;
  /** Largest JWKS body accepted, in bytes; reading stops (and the fetch is cancelled) past it. Default 65536. */
  maxBytes?: number;
}

interface JwksEntry {
  expiresAt: number;
  keys: Promise<VerificationKey[]>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Is `jku` a URL this resolver may fetch? Exposed so callers can explain a refusal. */
export function isAllowedJkuUrl(
  jku: string,
  options: Pick<JwksKeyResolverOptions, 'allowInsecureLoopback' | 'allowedJkuPrefixes'> = {},
): boolean {
  let url: URL;
  try {
    url = new URL(jku);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const secure = url.protocol === 'https:';
  const loopback = url.protocol === 'http:' && options.allowInsecureLoopback === true && LOOPBACK_HOSTS.has(url.hostname);
  if (!secure && !loopback) return false;
  const prefixes = options.allowedJkuPrefixes;
  return prefixes === undefined || prefixes.some((prefix) => url.href.startsWith(prefix));
}

/**
 * Resolves keys from the JWKS at the protected header's `jku` (spec §8.4.2). HTTPS only unless
 * loopback is allowed; responses are cached per URL for `ttlMs` (concurrent look-ups share one
 * fetch); a failed or malformed JWKS yields no keys and is not cached; invalid JWK entries are skipped.
 */
export function createJwksKeyResolver(options: JwksKeyResolverOptions = {}): KeyResolver {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`expected JwksKeyResolverOptions, got ${describeValue(options)}`);
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    throw new TypeError(`expected fetch to be a function, got ${describeValue(options.fetch)}`);
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw new TypeError(`expected clock to be a function, got ${describeValue(options.clock)}`);
  const prefixes = options.allowedJkuPrefixes;
  if (prefixes !== undefined && (!Array.isArray(prefixes) || !prefixes.every((p) => typeof p === 'string'))) {
    throw new TypeError(`expected allowedJkuPrefixes to be an array of strings, got ${describeValue(prefixes)}`);
  }
  const ttlMs = options.ttlMs ?? 300_000;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0)
    throw new RangeError(`expected ttlMs >= 0, got ${describeValue(ttlMs)}`);
  const clock = options.clock ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 5000;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new RangeError(`expected timeoutMs > 0, got ${describeValue(timeoutMs)}`);
  const maxBytes = options.maxBytes ?? 65_536;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
    throw new RangeError(`expected maxBytes to be an integer >= 1, got ${describeValue(maxBytes)}`);
  const cache = new Map<string, JwksEntry>();

  async function load(url: string): Promise<VerificationKey[]> {
    const doFetch = options.fetch ?? globalThis.fetch;
    if (typeof doFetch !== 'function') return [];
    const signal = typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(timeoutMs) : undefined;
    const response = await doFetch(url, { headers: { accept: 'application/jwk-set+json, application/json' }, redirect: 'error', signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body: unknown = JSON.parse(await readLimited(response, maxBytes));
    const entries = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
    if (!Array.isArray(entries)) throw new Error('not a JWKS');
    const keys: VerificationKey[] = [];
    for (const entry of entries) {
      const imported = readPublicJwk(entry);
      if (imported.ok) keys.push(imported.key);
    }
    return keys;
  }

  return {
    async resolve(header) {
      if (typeof header.jku !== 'string' || !isAllowedJkuUrl(header.jku, options)) return [];
      const url = new URL(header.jku).href;
      const now = clock();
      let entry = cache.get(url);
      if (!entry || entry.expiresAt <= now) {
        entry = { expiresAt: now + ttlMs, keys: load(url) };
        cache.set(url, entry);
      }
      let keys: VerificationKey[];
      try {
        keys = await entry.keys;
      } catch {
        if (cache.get(url) === entry) cache.delete(url); // failures are not cached
        return [];
      }
      return header.kid === undefined ? keys : keys.filter((key) => key.kid === header.kid);
    },
  };
}

/** The body as UTF-8 text, reading at most `maxBytes`: a hostile `jku` cannot make us buffer an endless response. */
async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error('JWKS too large');
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error('JWKS too large');
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** Asks each resolver in turn and returns every key found; a failing resolver contributes nothing. */
export function composeKeyResolvers(...resolvers: KeyResolver[]): KeyResolver {
  resolvers.forEach((resolver, index) => {
    if (typeof resolver?.resolve !== 'function') {
      throw new TypeError(`expected a KeyResolver (an object with resolve()) at argument ${index}, got ${describeValue(resolver)}`);
    }
  });
  return {
    async resolve(header) {
      const results = await Promise.all(resolvers.map((resolver) => resolver.resolve(header).catch(() => [] as VerificationKey[])));
      return results.flat();
    },
  };
}
