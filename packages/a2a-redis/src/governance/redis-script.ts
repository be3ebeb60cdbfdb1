import { createHash } from 'node:crypto';
import { withDeadline } from '../connection.js';
import type { RedisScript } from '../script.js';

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

interface ScriptRunner {
  readonly prefix: string;
  /** Runs `script`; a connection failure or timeout rejects with `RedisUnavailableError` (a `ServiceUnavailableError`). */
  run(script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** A plain command with the same timeout and error mapping. */
  command(args: readonly string[]): Promise<unknown>;
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

  // withDeadline: node-redis's command timeout covers a command waiting to be written, the deadline
  // also one written to a Redis that then stalls; either way callers get RedisUnavailableError (503).
  return {
    prefix,
    run: (script, keys, args) => withDeadline(timeout, () => script.run(client, keys, args.map(String))),
    command: (args) => withDeadline(timeout, () => client.sendCommand(args, commandOptions)),
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
