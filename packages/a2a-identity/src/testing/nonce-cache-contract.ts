import { describe, expect, it } from 'vitest';
import type { NonceCache } from '../nonce-cache.js';

/** What the contract asks of a cache it makes: the per-owner quota under test. */
export interface NonceCacheContractOptions {
  maxEntriesPerOwner: number;
}

/**
 * Makes a cache for one test. Tests use keys and owners of their own (random per run), so caches
 * may share one backend (one Redis, one database) across tests and runs.
 */
export type NonceCacheFactory = (options: NonceCacheContractOptions) => NonceCache | Promise<NonceCache>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const MINUTE = 60_000;

/**
 * The `NonceCache` contract every implementation runs (vitest): a replay is refused, an entry
 * already past is refused (and not recorded), an entry is held until its expiry and may be taken
 * again after it, one owner's quota leaves room for the others, and of concurrent adds of one key
 * exactly one wins. Time is the real clock: a shared backend cannot follow a fake one.
 */
export function describeNonceCacheContract(name: string, factory: NonceCacheFactory): void {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  let counter = 0;
  const fresh = (what: string) => `contract-${run}-${what}-${counter++}`;

  describe(`NonceCache contract: ${name}`, () => {
    it('records a fresh key and refuses it again while it is live, whoever asks', async () => {
      const cache = await factory({ maxEntriesPerOwner: 100 });
      const [key, owner] = [fresh('key'), fresh('owner')];
      expect(await cache.add(key, Date.now() + MINUTE, owner)).toBe(true);
      expect(await cache.add(key, Date.now() + MINUTE, owner)).toBe(false);
      expect(await cache.add(key, Date.now() + 2 * MINUTE, fresh('other'))).toBe(false);
      expect(await cache.add(fresh('key'), Date.now() + MINUTE, owner)).toBe(true);
    });

    it('refuses an entry already past, and does not record it', async () => {
      const cache = await factory({ maxEntriesPerOwner: 100 });
      const [key, owner] = [fresh('key'), fresh('owner')];
      expect(await cache.add(key, Date.now() - 1, owner)).toBe(false);
      expect(await cache.add(key, Date.now() - MINUTE, owner)).toBe(false);
      expect(await cache.add(key, Number.NaN, owner)).toBe(false);
      expect(await cache.add(key, Date.now() + MINUTE, owner)).toBe(true);
    });

    it('holds an entry until its expiry, and takes the key again after it', async () => {
      const cache = await factory({ maxEntriesPerOwner: 100 });
      const [key, owner] = [fresh('key'), fresh('owner')];
      const expiresAtMs = Date.now() + 1_200;
      expect(await cache.add(key, expiresAtMs, owner)).toBe(true);
      let tries = 0;
      while (Date.now() < expiresAtMs - 20) {
        const added = await cache.add(key, expiresAtMs + MINUTE, owner);
        // Answered before the expiry: the entry was live, so this must be a replay.
        if (Date.now() < expiresAtMs) expect(added, `a replay accepted ${expiresAtMs - Date.now()} ms before expiry`).toBe(false);
        tries++;
        await sleep(40);
      }
      expect(tries).toBeGreaterThan(3);
      // After it: the key is free again (entries do not stay for good), within a little while.
      const deadline = Date.now() + 5_000;
      let added = false;
      while (!added && Date.now() < deadline) {
        await sleep(50);
        added = (await cache.add(key, Date.now() + MINUTE, owner)) === true;
      }
      expect(added).toBe(true);
    }, 10_000);

    it("holds each owner to its quota, and one owner's full share leaves room for the others", async () => {
      const cache = await factory({ maxEntriesPerOwner: 3 });
      const [greedy, other] = [fresh('greedy'), fresh('other')];
      const expiresAtMs = Date.now() + MINUTE;
      const first = [fresh('key'), fresh('key'), fresh('key')];
      for (const key of first) expect(await cache.add(key, expiresAtMs, greedy)).toBe(true);
      expect(await cache.add(fresh('key'), expiresAtMs, greedy)).toBe(false);
      expect(await cache.add(first[0] as string, expiresAtMs, greedy)).toBe(false);
      for (let i = 0; i < 3; i++) expect(await cache.add(fresh('key'), expiresAtMs, other)).toBe(true);
      expect(await cache.add(fresh('key'), expiresAtMs, other)).toBe(false);
    });

    it('of concurrent adds of one key, exactly one is recorded', async () => {
      const cache = await factory({ maxEntriesPerOwner: 100 });
      const key = fresh('key');
      const expiresAtMs = Date.now() + MINUTE;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => cache.add(key, expiresAtMs, fresh(`owner${i}`))));
      expect(answers.filter((answer) => answer === true)).toHaveLength(1);
    });
  });
}
