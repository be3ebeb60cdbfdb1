import { randomUUID } from 'node:crypto';
import type { ConcurrencySlots, SlotGrant, SlotLease } from '@a2aplane/a2a-governance';
import { ACQUIRE_SLOT, RENEW_SLOTS } from './lua.js';
import { createScriptRunner, keyPart, LeaseRenewer, type RedisGovernanceOptions } from './redis-script.js';

export interface RedisConcurrencySlotsOptions extends RedisGovernanceOptions {
  /**
   * Milliseconds a slot lives without renewal. Held slots are renewed every third of it, so only
   * a crashed (or cut-off) replica's slots expire and come back. Default 30 000.
   */
  leaseMs?: number;
}

/** A slot held in Redis: the set it lives in and its member. */
class RedisSlotLease {
  constructor(
    readonly key: string,
    readonly id: string,
  ) {}
}

/**
 * `ConcurrencySlots` shared by every replica: the slots of a (caller, skill) are a Redis sorted
 * set of leases scored by expiry, and one Lua script drops the expired, counts and adds, so the
 * replicas together never hold more than `max`. Pass it as `slots` to `TaskPolicyEngine` (the
 * `Governor` then awaits it). `acquire` rejects with `ServiceUnavailableError` (503) when Redis
 * can't be reached; `release` never throws: a slot it could not give back expires with its lease.
 */
export function createRedisConcurrencySlots(options: RedisConcurrencySlotsOptions): ConcurrencySlots & {
  acquire(caller: string, skill: string, max: number): Promise<SlotGrant>;
  /** Stops renewing held slots (they then expire). Does not close the client. */
  close(): void;
} {
  const leaseMs = options.leaseMs ?? 30_000;
  if (!Number.isInteger(leaseMs) || leaseMs < 30) throw new RangeError(`expected leaseMs to be an integer >= 30, got ${leaseMs}`);
  const runner = createScriptRunner(options);
  const renewer = new LeaseRenewer<RedisSlotLease>(Math.max(10, Math.floor(leaseMs / 3)), (leases) =>
    runner.run(
      RENEW_SLOTS,
      leases.map((lease) => lease.key),
      [leaseMs, ...leases.map((lease) => lease.id)],
    ),
  );
  return {
    async acquire(caller, skill, max) {
      if (typeof caller !== 'string' || typeof skill !== 'string') throw new TypeError('expected caller and skill to be strings');
      if (!(max >= 0)) throw new RangeError(`expected max to be >= 0, got ${String(max)}`);
      const lease = new RedisSlotLease(`${runner.prefix}slots:${keyPart(caller)}:${keyPart(skill)}`, randomUUID());
      const reply = (await runner.run(ACQUIRE_SLOT, [lease.key], [lease.id, max, leaseMs])) as unknown[];
      if (Number(reply[0]) !== 1) return { ok: false, active: Number(reply[1]) };
      renewer.add(lease);
      return { ok: true, lease };
    },
    release(lease: SlotLease) {
      if (!(lease instanceof RedisSlotLease) || !renewer.delete(lease)) return;
      void runner.command(['ZREM', lease.key, lease.id]).catch(() => undefined);
    },
    close() {
      renewer.stop();
    },
  };
}
