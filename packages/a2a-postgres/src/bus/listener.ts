import { randomInt } from 'node:crypto';
import type { Notification, Pool, PoolClient } from 'pg';
import { PostgresUnavailableError } from '../errors.js';
import { toUnavailable } from '../sql.js';

/** The advisory lock a replica's listening session holds: its liveness, as other replicas see it in `pg_locks`. */
export interface ReplicaLock {
  hi: number;
  lo: number;
}

interface ListenerOptions {
  pool: Pool;
  /** Channels to LISTEN on (already valid identifiers). */
  channels: string[];
  onNotification(channel: string, payload: string): void;
  /** Called after every (re)connection, once listening and locked: what was missed while down is caught up here. */
  onConnected(lock: ReplicaLock, reconnected: boolean): void;
  /** Called once when the connection has been down for `giveUpMs`. */
  onGiveUp(error: PostgresUnavailableError): void;
  giveUpMs: number;
  onError(error: unknown): void;
}

/**
 * One dedicated connection per bus (per replica) that LISTENs for event and cancel notifications
 * and holds the replica's advisory lock. It reconnects by itself (50 ms, doubling to 1 s); each new
 * session takes a new random lock, so a stale session of a dead connection never blocks it.
 */
export class Listener {
  private client: PoolClient | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private downSince: number | undefined;
  private gaveUp = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private attempts = 0;
  private connectedOnce = false;
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  lock: ReplicaLock | undefined;

  constructor(private readonly options: ListenerOptions) {}

  /** Resolves once listening (connecting on first use); rejects with `PostgresUnavailableError` when it cannot within `timeoutMs`. */
  ready(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new PostgresUnavailableError('closed'));
    if (this.client !== undefined && this.lock !== undefined) return Promise.resolve();
    this.connect();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new PostgresUnavailableError('timeout'));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  get up(): boolean {
    return this.client !== undefined && this.lock !== undefined;
  }

  private connect(): void {
    if (this.connecting || this.client || this.closed || this.retryTimer) return;
    this.connecting = this.open()
      .catch((error: unknown) => {
        this.options.onError(error);
        this.down(toUnavailable(error));
      })
      .finally(() => {
        this.connecting = undefined;
      });
  }

  private async open(): Promise<void> {
    const client = await this.options.pool.connect();
    if (this.closed) {
      client.release(true);
      return;
    }
    const broken = (error?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.lock = undefined;
      client.removeListener('notification', onNotification);
      client.release(true);
      if (error !== undefined) this.options.onError(error);
      this.down(new PostgresUnavailableError('unreachable', { cause: error }));
    };
    const onNotification = (message: Notification) => this.options.onNotification(message.channel, message.payload ?? '');
    client.on('notification', onNotification);
    client.on('error', broken);
    client.on('end', () => broken());
    try {
      for (const channel of this.options.channels) await client.query(`LISTEN "${channel}"`);
      const lock = { hi: randomInt(0, 2 ** 31 - 1), lo: randomInt(0, 2 ** 31 - 1) };
      await client.query('SELECT pg_advisory_lock($1, $2)', [lock.hi, lock.lo]);
      this.client = client;
      this.lock = lock;
    } catch (error) {
      client.release(true);
      throw error;
    }
    const reconnected = this.connectedOnce;
    this.connectedOnce = true;
    this.downSince = undefined;
    this.gaveUp = false;
    this.attempts = 0;
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
    this.options.onConnected(this.lock, reconnected);
  }

  private down(error: unknown): void {
    if (this.closed) return;
    const now = Date.now();
    this.downSince ??= now;
    if (!this.gaveUp && now - this.downSince >= this.options.giveUpMs) {
      this.gaveUp = true;
      this.options.onGiveUp(
        error instanceof PostgresUnavailableError ? error : new PostgresUnavailableError('unreachable', { cause: error }),
      );
    }
    const delay = Math.min(50 * 2 ** this.attempts, 1_000);
    this.attempts += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  /** Ends the session (its LISTENs and lock go with it). */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new PostgresUnavailableError('closed'));
    const client = this.client;
    this.client = undefined;
    this.lock = undefined;
    // Destroyed, not given back: the pool must not hand out a session holding LISTENs and a lock.
    client?.release(true);
  }
}
