import type { SendKey } from './task-store.js';

interface IdempotencyKeysOptions {
  /** How long a key is remembered after it was claimed. */
  ttlMs: number;
  /** Most keys kept; beyond it the oldest is forgotten first. */
  maxKeys: number;
  now: () => number;
}

/** One string for a send key (tenant, owner and message id cannot run together). */
const sendMapKey = (key: SendKey): string => `${key.tenant}\u0000${key.owner}\u0000${key.messageId}`;

/**
 * The SendMessage idempotency keys of an in-process store: (tenant, owner, messageId) -> task id,
 * bounded in count and age. Map insertion order is claim order, so the oldest key is the first.
 */
export class IdempotencyKeys {
  private readonly keys = new Map<string, { taskId: string; at: number }>();

  constructor(private readonly options: IdempotencyKeysOptions) {
    if (!(options.maxKeys >= 1)) throw new RangeError(`expected maxIdempotencyKeys >= 1, got ${options.maxKeys}`);
    if (!(options.ttlMs >= 0)) throw new RangeError(`expected idempotencyTtlMs >= 0, got ${options.ttlMs}`);
  }

  /** The task id already claimed for `key`, else claims it for `taskId` and returns `undefined`. */
  claim(key: SendKey, taskId: string): string | undefined {
    const now = this.options.now();
    this.expire(now);
    const k = sendMapKey(key);
    const held = this.keys.get(k);
    if (held !== undefined) return held.taskId;
    while (this.keys.size >= this.options.maxKeys) {
      const oldest = this.keys.keys().next().value;
      if (oldest === undefined) break;
      this.keys.delete(oldest);
    }
    this.keys.set(k, { taskId, at: now });
    return undefined;
  }

  /** Forgets `key` if it still names `taskId` (a send that never made its task gives its key back). */
  release(key: SendKey, taskId: string): void {
    const k = sendMapKey(key);
    if (this.keys.get(k)?.taskId === taskId) this.keys.delete(k);
  }

  /** Drops keys past their TTL; stops at the first one still young (claim order is age order). */
  private expire(now: number): void {
    for (const [k, held] of this.keys) {
      if (now - held.at <= this.options.ttlMs) return;
      this.keys.delete(k);
    }
  }
}
