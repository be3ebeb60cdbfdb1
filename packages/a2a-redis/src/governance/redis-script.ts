import { createHash } from 'node:crypto';
import { ServiceUnavailableError } from '@a2aplane/a2a-types';

/**
 * What the governance backends need of a node-redis client: `sendCommand` with a per-command
 * timeout, and its `error` events. A `createClient()` client (or `createRedisConnection()`) is one.
 */
export interface RedisCommandClient {
  sendCommand(args: ReadonlyArray<string>, options?: { timeout?: number }): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  listenerCount(event: 'error'): number;
}

/** Options every governance backend shares. */
export interface RedisGovernanceOptions {
  /** A node-redis client; the caller connects and closes it. */
  client: RedisCommandClient;
  /** Prefix of every key written, so several deployments (or test runs) share one Redis. Default `a2a:`. */
  keyPrefix?: string;
  /**
   * Milliseconds a command may take before it fails with `ServiceUnavailableError` (while Redis is
   * down node-redis queues commands until it reconnects; this bounds the wait). Default 2000.
   */
  commandTimeoutMs?: number;
  /**
   * Receives the client's `error` events when nobody else listens (node-redis emits one per
   * failed reconnect; unheard, Node would crash the process). Default: ignored, since every
   * command that fails meanwhile rejects with `ServiceUnavailableError` anyway.
   */
  onError?: (error: unknown) => void;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/** node-redis errors that mean "no usable connection" (by class name: they may come from any copy of the client). */
const UNREACHABLE = new Set([
  'ClientOfflineError',
  'ConnectionTimeoutError',
  'SocketClosedUnexpectedlyError',
  'DisconnectsClientError',
  'ReconnectStrategyError',
]);

/** Thrown by the runner's own deadline. */
class DeadlineError extends Error {}

/**
 * The error callers see when Redis cannot answer: 503 / JSON-RPC -32000 `SERVICE_UNAVAILABLE`,
 * retryable, `metadata.backend: 'redis'` and `metadata.cause` `timeout` | `closed` | `unreachable`.
 * Any other error (a script bug, say) is returned as it is. The message names no host: node-redis's
 * may carry the address, so it is not passed on.
 */
function redisUnavailable(what: string, error: unknown): unknown {
  if (ServiceUnavailableError.isInstance(error) || !(error instanceof Error)) return error;
  const name = error.name === 'Error' ? error.constructor.name : error.name;
  const code = (error as { code?: unknown }).code;
  let cause: 'timeout' | 'closed' | 'unreachable' | undefined;
  if (error instanceof DeadlineError || name === 'TimeoutError' || name === 'SocketTimeoutError') cause = 'timeout';
  else if (name === 'ClientClosedError' || /client is closed|socket closed|connection is closed/i.test(error.message)) cause = 'closed';
  else if (UNREACHABLE.has(name) || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT')
    cause = 'unreachable';
  if (cause === undefined) return error;
  return new ServiceUnavailableError({
    message: `The ${what} is unavailable (Redis ${cause === 'timeout' ? 'did not answer in time' : 'is not reachable'}); retry later`,
    metadata: { backend: 'redis', cause },
    retryAfterSeconds: 1,
  });
}

/** A Lua script run with EVALSHA, falling back to EVAL (which caches it) when Redis does not know it yet. */
export class RedisScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

interface ScriptRunner {
  readonly prefix: string;
  /** Runs `script`; a connection failure or timeout rejects with `ServiceUnavailableError` naming `what`. */
  run(what: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** A plain command with the same timeout and error mapping. */
  command(what: string, args: readonly string[]): Promise<unknown>;
}

function checkPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || prefix.length > 200) throw new TypeError('expected keyPrefix to be a string of at most 200 characters');
  return prefix;
}

export function createScriptRunner(options: RedisGovernanceOptions): ScriptRunner {
  const { client } = options;
  if (typeof client?.sendCommand !== 'function') throw new TypeError('expected client to be a node-redis client');
  const timeout = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (!Number.isFinite(timeout) || timeout <= 0) throw new RangeError(`expected commandTimeoutMs to be > 0, got ${String(timeout)}`);
  const prefix = checkPrefix(options.keyPrefix ?? 'a2a:');
  if (client.listenerCount('error') === 0) client.on('error', options.onError ?? (() => undefined));
  const commandOptions = { timeout };

  // node-redis's command timeout covers a command waiting to be written; the deadline also covers
  // one written to a Redis that then stalls.
  const send = async (args: readonly string[]): Promise<unknown> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError('deadline')), timeout);
    });
    try {
      return await Promise.race([client.sendCommand(args, commandOptions), deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
  const isNoScript = (error: unknown): boolean => error instanceof Error && error.message.startsWith('NOSCRIPT');

  return {
    prefix,
    async run(what, script, keys, args) {
      const tail = [String(keys.length), ...keys, ...args.map(String)];
      try {
        try {
          return await send(['EVALSHA', script.sha, ...tail]);
        } catch (error) {
          if (!isNoScript(error)) throw error;
          return await send(['EVAL', script.source, ...tail]);
        }
      } catch (error) {
        throw redisUnavailable(what, error);
      }
    },
    async command(what, args) {
      try {
        return await send(args);
      } catch (error) {
        throw redisUnavailable(what, error);
      }
    },
  };
}

/** A Redis key part for caller-chosen text: kept readable when short and plain, hashed otherwise (bounded length). */
export function keyPart(text: string): string {
  if (text.length <= 64 && /^[\w.@:-]*$/.test(text)) return text;
  return `#${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/**
 * Renews leases while they are held: every `intervalMs` it hands the held ones to `renew`. The
 * timer runs only while something is held and never keeps the process alive. A failed renewal is
 * ignored: the next one retries, and a lease nobody renews expires (its slot or reservation
 * comes back by itself).
 */
export class LeaseRenewer<L> {
  private readonly held = new Set<L>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly renew: (leases: readonly L[]) => Promise<unknown>,
  ) {}

  add(lease: L): void {
    this.held.add(lease);
    if (this.timer === undefined) {
      this.timer = setInterval(() => {
        if (this.held.size > 0) this.renew([...this.held]).catch(() => undefined);
      }, this.intervalMs);
      this.timer.unref?.();
    }
  }

  delete(lease: L): boolean {
    const had = this.held.delete(lease);
    if (this.held.size === 0) this.stop();
    return had;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
