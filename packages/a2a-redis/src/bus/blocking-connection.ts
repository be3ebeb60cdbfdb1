import type { RedisClientLike } from '../connection.js';
import { RedisUnavailableError } from '../errors.js';

/**
 * The dedicated connection a blocking read runs on (a blocked connection runs nothing else),
 * duplicated from the command client on first use, and the way to interrupt it: CLIENT UNBLOCK,
 * sent on the command client with this connection's CLIENT ID.
 */
export class BlockingConnection {
  private connection: RedisClientLike | undefined;
  private connecting: Promise<unknown> | undefined;
  /** CLIENT ID of the connection; forgotten on each (re)connect. */
  private id: number | undefined;
  /** A blocking command is in flight. */
  private blocked = false;

  constructor(
    private readonly client: RedisClientLike,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Connects (waiting a short while at most) and learns the connection's id; throws `RedisUnavailableError` while it is not ready. */
  async ready(): Promise<void> {
    const connection = await this.connect();
    this.id ??= Number(await connection.sendCommand(['CLIENT', 'ID']));
  }

  /** Sends `command`, which may block, on the connection `ready()` made (sent at once: no await before it). */
  async block(command: string[]): Promise<unknown> {
    const connection = this.connection;
    if (connection === undefined) throw new RedisUnavailableError('unreachable');
    this.blocked = true;
    try {
      return await connection.sendCommand(command);
    } finally {
      this.blocked = false;
    }
  }

  /** Interrupts the blocked command; false when none was blocked (or Redis did not answer). */
  async unblock(): Promise<boolean> {
    if (!this.blocked || this.id === undefined) return false;
    return (await this.client.sendCommand(['CLIENT', 'UNBLOCK', String(this.id)])) === 1;
  }

  destroy(): void {
    const connection = this.connection;
    this.connection = undefined;
    try {
      connection?.destroy();
    } catch {
      // already closed
    }
  }

  private async connect(): Promise<RedisClientLike> {
    if (!this.connection) {
      const connection = this.client.duplicate();
      connection.on('error', (e) => this.onError(e));
      connection.on('ready', () => {
        this.id = undefined;
      });
      this.connection = connection;
      // The first connect may wait for Redis indefinitely (node-redis retries it): a read only waits a while each turn.
      this.connecting = connection.connect().catch((error: unknown) => this.onError(error));
    }
    const connection = this.connection;
    if (!connection.isReady) {
      await Promise.race([this.connecting, new Promise((resolve) => setTimeout(resolve, 250))]);
      if (!connection.isReady) throw new RedisUnavailableError('unreachable');
    }
    return connection;
  }
}
