import * as assert from './assert.js';
import type { ConcurrencySlots, SlotGrant, SlotLease } from '../task-policy.js';
import type { ContractTestApi } from './contract-api.js';

export interface ConcurrencySlotsContractOptions {
  /** Fresh slots (a shared backend: its own key prefix). */
  create(): ConcurrencySlots | Promise<ConcurrencySlots>;
  /** Releases slots made by `create` (timers, connections, keys). */
  dispose?(slots: ConcurrencySlots): void | Promise<void>;
}

function leaseOf(grant: SlotGrant): SlotLease {
  assert.equal(grant.ok, true, 'expected a slot');
  return (grant as { ok: true; lease: SlotLease }).lease;
}

/**
 * The `ConcurrencySlots` contract: at most `max` held per (caller, skill), a refusal says how many
 * are held, `release` frees one once (later calls and foreign leases are ignored, never thrown),
 * pairs are independent. Every implementation runs it (`createInMemoryConcurrencySlots` in this
 * package, the Redis slots in `@a2aplane/a2a-redis`).
 */
export function describeConcurrencySlotsContract(name: string, options: ConcurrencySlotsContractOptions, t: ContractTestApi): void {
  const made: ConcurrencySlots[] = [];
  const open = async (): Promise<ConcurrencySlots> => {
    const slots = await options.create();
    made.push(slots);
    return slots;
  };
  // Callers of their own per test: a shared backend never mixes runs.
  const caller = (): string => `contract-${globalThis.crypto.randomUUID()}`;

  t.describe(`ConcurrencySlots contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const slots of made.splice(0)) await options.dispose?.(slots);
    });

    t.it('grants up to max per (caller, skill), then refuses with the number held', async () => {
      const slots = await open();
      const who = caller();
      leaseOf(await slots.acquire(who, 's', 2));
      leaseOf(await slots.acquire(who, 's', 2));
      assert.deepEqual(await slots.acquire(who, 's', 2), { ok: false, active: 2 });
    });

    t.it('frees a slot on release, once: a second release of the same lease frees nothing', async () => {
      const slots = await open();
      const who = caller();
      const first = leaseOf(await slots.acquire(who, 's', 2));
      leaseOf(await slots.acquire(who, 's', 2));
      slots.release(first);
      slots.release(first);
      leaseOf(await slots.acquire(who, 's', 2));
      assert.deepEqual(await slots.acquire(who, 's', 2), { ok: false, active: 2 });
    });

    t.it('keeps pairs apart: another skill or another caller has slots of its own', async () => {
      const slots = await open();
      const who = caller();
      leaseOf(await slots.acquire(who, 's', 1));
      assert.equal((await slots.acquire(who, 's', 1)).ok, false);
      leaseOf(await slots.acquire(who, 't', 1));
      leaseOf(await slots.acquire(caller(), 's', 1));
      // Separator characters in ids do not merge pairs.
      leaseOf(await slots.acquire(`${who}:s`, '', 1));
    });

    t.it('refuses everything with max 0', async () => {
      const slots = await open();
      assert.deepEqual(await slots.acquire(caller(), 's', 0), { ok: false, active: 0 });
    });

    t.it('ignores a lease it did not issue, without throwing', async () => {
      const slots = await open();
      const who = caller();
      leaseOf(await slots.acquire(who, 's', 1));
      slots.release({});
      assert.equal((await slots.acquire(who, 's', 1)).ok, false);
    });
  });
}
