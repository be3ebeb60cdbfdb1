import type { SendKey } from './task-store.js';

interface IdempotencyKeysOptions {
  /** How long a key is remembered after it was claimed. */
  ttlMs: number;
  /** Most keys kept; beyond it the oldest is forgotten first. */
  maxKeys: number;
  now: () => number;
}

/** One string for a send key (tenant, owner, message id and fingerprint cannot run together). */
const sendMapKey = (key: SendKey): string => `${key.tenant}\u0000${key.owner}\u0000${key.messageId}\u0000${key.fingerprint}`;

interface Held {
  taskId: string;
  at: number;
  /** Its map key, so the queue holds the entry itself. */
  k: string;
}

/**
 * The SendMessage idempotency keys of an in-process store: (tenant, owner, messageId) -> task id,
 * bounded in count and age. The oldest key is found through a queue in claim order, not by
 * iterating the map from the front: V8 walks over every hole that deletions left at a map's front,
 * and at the key cap every claim deletes one (in profiles that walk was a sixth of a SendMessage's CPU).
 */
export class IdempotencyKeys {
  private readonly keys = new Map<string, Held>();
  /** Claims in order, oldest first; an item whose key was released or claimed again since is skipped. */
  private queue: Held[] = [];
  private head = 0;

  constructor(private readonly options: IdempotencyKeysOptions) {
    if (!(options.maxKeys >= 1)) throw new RangeError(`expected maxIdempotencyKeys >= 1, got ${options.maxKeys}`);
    if (!(options.ttlMs >= 0)) throw new RangeError(`expected idempotencyTtlMs >= 0, got ${options.ttlMs}`);
  }

  /** The task id already claimed for `key`, else claims it for `taskId` and returns `undefined`. */
  claim(key: SendKey, taskId: string): string | undefined {
    const now = this.options.now();
    this.expire(now);
    const k = sendMapKey(key);
    const current = this.keys.get(k);
    if (current !== undefined) return current.taskId;
    while (this.keys.size >= this.options.maxKeys) {
      const oldest = this.oldest();
      if (oldest === undefined) break;
      this.keys.delete(oldest.k);
      this.head += 1;
    }
    const held = { taskId, at: now, k };
    this.keys.set(k, held);
    this.queue.push(held);
    this.compact();
    return undefined;
  }

  /** Forgets `key` if it still names `taskId` (a send that never made its task gives its key back). */
  release(key: SendKey, taskId: string): void {
    const k = sendMapKey(key);
    if (this.keys.get(k)?.taskId === taskId) this.keys.delete(k);
  }

  /**
   * Drops the queue's consumed front, and the items of released keys once they outnumber the held
   * ones (sends that fail give their keys back): the queue stays within about twice the map.
   */
  private compact(): void {
    const pending = this.queue.length - this.head;
    if (pending > 2 * this.keys.size + 1024) {
      this.queue = this.queue.slice(this.head).filter((held) => this.keys.get(held.k) === held);
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** The oldest claim still held (the queue's head once stale items are dropped). */
  private oldest(): Held | undefined {
    while (this.head < this.queue.length) {
      const held = this.queue[this.head] as Held;
      if (this.keys.get(held.k) === held) return held;
      this.head += 1;
    }
    return undefined;
  }

  /** Drops keys past their TTL; stops at the first one still young (claim order is age order). */
  private expire(now: number): void {
    for (let held = this.oldest(); held !== undefined && now - held.at > this.options.ttlMs; held = this.oldest()) {
      this.keys.delete(held.k);
      this.head += 1;
    }
  }
}
