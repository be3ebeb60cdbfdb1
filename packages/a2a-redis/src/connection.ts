import { createClient } from 'redis';
import { startDeadline } from './deadlines.js';
import { RedisUnavailableError } from './errors.js';

/** The node-redis client type this package works with (the default modules, RESP2). */
export type RedisConnection = ReturnType<typeof createClient>;

/**
 * What the store, bus and ledgers use of a client: any node-redis v5 client, connected by its
 * owner. Commands go through `sendCommand` (node-redis pipelines commands sent in one tick), which
 * keeps this package off node-redis' very large generic command types.
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same options (not connected): for the blocking reader and pub/sub. */
  duplicate(): RedisClientLike;
  connect(): Promise<unknown>;
  destroy(): void;
  readonly isReady: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  listenerCount(event: string): number;
  /** Pub/sub (on a duplicate: a subscribed connection runs no other command). */
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener?: (message: string) => void): Promise<unknown>;
}

export interface RedisConnectionOptions {
  /** Default `redis://127.0.0.1:6379` (`REDIS_URL` is not read here: configuration stays explicit). */
  url?: string;
  /** Most milliseconds one connection attempt may take. Default 2 000. */
  connectTimeoutMs?: number;
  /**
   * How long `connect()` keeps trying when the client has never been connected: past it, `connect()` rejects with an
   * error naming the host and port that did not answer (never the credentials) instead of retrying for ever, so a
   * wrong address fails at start-up. Once connected, reconnection never gives up. Default 5 000.
   */
  firstConnectTimeoutMs?: number;
  /** Longest wait between two reconnection attempts (exponential backoff from 50 ms). Default 2 000. */
  maxReconnectDelayMs?: number;
  /**
   * Sends PING this often so a dead peer is noticed on an idle connection (and idle connections
   * survive proxies that drop them). Default 5 000; 0 turns it off.
   */
  pingIntervalMs?: number;
  /**
   * Called with client errors (connection refused, reset...) instead of the unhandled 'error' event
   * that would crash the process. The message never includes the URL (it may hold a password).
   */
  onError?: (error: Error) => void;
  /** Client name shown by `CLIENT LIST` (e.g. the replica id). */
  name?: string;
}

/** Backoff between reconnection attempts: 50 ms doubling to the cap, with 0-25 % jitter so replicas don't reconnect in lockstep. */
export function reconnectDelay(retries: number, maxDelayMs: number): number {
  const base = Math.min(maxDelayMs, 50 * 2 ** Math.min(retries, 16));
  return Math.round(base * (1 + Math.random() * 0.25));
}

/**
 * Creates (does not connect) a node-redis client with the package's failure defaults: bounded
 * connect time, endless reconnection with capped backoff, and commands rejected at once while
 * disconnected (no offline queue, so nothing waits on a Redis that is down; callers get
 * `RedisUnavailableError`). Connect it with `await client.connect()` and close it with `client.quit()`.
 */
export function createRedisConnection(options: RedisConnectionOptions = {}): RedisConnection {
  const maxDelay = options.maxReconnectDelayMs ?? 2_000;
  const pingInterval = options.pingIntervalMs ?? 5_000;
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const firstConnectTimeout = options.firstConnectTimeoutMs ?? 5_000;
  if (typeof firstConnectTimeout !== 'number' || !(firstConnectTimeout >= 0))
    throw new RangeError(`expected firstConnectTimeoutMs to be a number >= 0, got ${String(firstConnectTimeout)}`);
  let connectedOnce = false;
  let firstFailureAt: number | undefined;
  const reconnectStrategy = (retries: number, cause: Error): number | Error => {
    if (!connectedOnce) {
      firstFailureAt ??= Date.now();
      if (Date.now() - firstFailureAt >= firstConnectTimeout) {
        firstFailureAt = undefined; // a later connect() call gets its own full wait
        // node-redis rejects connect() with this message (wrapped in its ReconnectStrategyError): it is for the
        // operator starting the process, so it names the address (never the credentials) and the fix.
        return new Error(
          `No Redis answered at ${addressOf(url)} within ${firstConnectTimeout} ms (${cause.message}): check the URL, or start Redis`,
          { cause },
        );
      }
    }
    return reconnectDelay(retries, maxDelay);
  };
  const client = createClient({
    url,
    ...(options.name === undefined ? {} : { name: options.name }),
    disableOfflineQueue: true,
    ...(pingInterval > 0 ? { pingInterval } : {}),
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      reconnectStrategy,
    },
  });
  client.on('ready', () => {
    connectedOnce = true;
  });
  guardClient(client as unknown as RedisClientLike, options.onError);
  return client;
}

/** `host:port` of a Redis URL, never its user name or password. */
function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'an unreadable URL';
  }
}

/**
 * Gives `client` an 'error' listener when it has none: node-redis emits 'error' on every failed
 * reconnection, and an EventEmitter 'error' without a listener crashes the process.
 */
export function guardClient(client: RedisClientLike, onError?: (error: Error) => void): void {
  if (onError) client.on('error', onError);
  else if (client.listenerCount('error') === 0) client.on('error', () => {});
}

/** The errors node-redis raises when it has no usable connection (by name: they come from any copy of the client). */
const UNREACHABLE = new Set([
  'ClientClosedError',
  'ClientOfflineError',
  'ConnectionTimeoutError',
  'SocketClosedUnexpectedlyError',
  'DisconnectsClientError',
  'ReconnectStrategyError',
]);

/** Maps a connection failure to `RedisUnavailableError`; any other error (a bug, a script error) is returned as it is. */
export function toUnavailable(error: unknown): unknown {
  if (RedisUnavailableError.isInstance(error)) return error;
  if (error instanceof Error) {
    // node-redis error classes keep `name` 'Error': the constructor names them.
    const name = error.name === 'Error' ? error.constructor.name : error.name;
    if (name === 'TimeoutError' || name === 'SocketTimeoutError') return new RedisUnavailableError('timeout', { cause: error });
    if (name === 'ClientClosedError') return new RedisUnavailableError('closed', { cause: error });
    if (UNREACHABLE.has(name)) return new RedisUnavailableError('unreachable', { cause: error });
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT')
      return new RedisUnavailableError('unreachable', { cause: error });
    // node-redis reports a client that never connected (or closed) with a plain Error.
    if (/client is closed|socket closed|connection is closed/i.test(error.message))
      return new RedisUnavailableError('closed', { cause: error });
  }
  return error;
}

/**
 * Runs one Redis round trip with a deadline: node-redis' own command timeout stops only commands
 * not yet written, so a Redis that accepted the command and then stalled would hang the caller.
 * Past `timeoutMs` the caller gets `RedisUnavailableError('timeout')`; the write may still apply
 * later, which is why every write here is idempotent or guarded by a revision.
 */
export function withDeadline<T>(timeoutMs: number, run: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // One timer per timeout value, not one per call (decision 0039): calls are the hot path.
    const deadline = startDeadline(timeoutMs, () => reject(new RedisUnavailableError('timeout')));
    let call: Promise<T>;
    try {
      call = run();
    } catch (error) {
      deadline.settle();
      reject(toUnavailable(error));
      return;
    }
    call.then(
      (value) => {
        deadline.settle();
        resolve(value);
      },
      (error: unknown) => {
        deadline.settle();
        reject(toUnavailable(error));
      },
    );
  });
}
