import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, reconnectDelay, toUnavailable, withDeadline } from '../src/connection.js';
import { RedisUnavailableError } from '../src/errors.js';
import { defineScript } from '../src/script.js';
import { cleanKeys, connectTestRedis, testKeyPrefix } from './redis.js';

describe('connection failure handling (needs Redis)', () => {
  let client: Awaited<ReturnType<typeof connectTestRedis>>;
  const prefix = testKeyPrefix('connection');

  beforeAll(async () => {
    client = await connectTestRedis('a2a-redis connection tests');
  });
  afterAll(async () => {
    await cleanKeys(client, prefix);
    await client.quit();
  });

  it('a command to a port where nothing listens fails fast with RedisUnavailableError (503, retryable), not a hang', async () => {
    const errors: Error[] = [];
    const dead = createRedisConnection({ url: 'redis://127.0.0.1:1', onError: (e) => errors.push(e) });
    const connecting = dead.connect().catch(() => {});
    const error = await withDeadline(500, () => dead.get('x')).catch((e: unknown) => e);
    expect(RedisUnavailableError.isInstance(error)).toBe(true);
    const unavailable = error as RedisUnavailableError;
    expect(unavailable.httpStatus).toBe(503);
    expect(unavailable.grpcStatus).toBe('UNAVAILABLE');
    expect(unavailable.reason).toBe('SERVICE_UNAVAILABLE');
    expect(unavailable.retryable).toBe(true);
    expect(unavailable.toRestError().error.details[0]).toMatchObject({
      reason: 'SERVICE_UNAVAILABLE',
      metadata: { retryAfterSeconds: '1' },
    });
    expect(unavailable.message).not.toMatch(/127\.0\.0\.1/);
    dead.destroy();
    await connecting;
    // The 'error' events went to onError instead of crashing the process.
    expect(errors.length).toBeGreaterThan(0);
  });

  it('a Redis that accepts a command and never answers times out with cause "timeout"', async () => {
    // A fake Redis: answers the handshake commands, then goes silent.
    const sockets: Socket[] = [];
    const server: Server = createServer((socket) => {
      sockets.push(socket);
      socket.on('data', (data) => {
        // One +OK per command of the handshake (CLIENT SETINFO...); GET gets no answer.
        for (const command of data.toString().split(/^\*/m).slice(1)) if (!/\r\nGET\r\n/i.test(command)) socket.write('+OK\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const stalled = createRedisConnection({ url: `redis://127.0.0.1:${port}`, pingIntervalMs: 0 });
    await stalled.connect();
    const error = await withDeadline(200, () => stalled.get('x')).catch((e: unknown) => e);
    expect(RedisUnavailableError.isInstance(error)).toBe(true);
    expect((error as RedisUnavailableError).metadata.cause).toBe('timeout');
    stalled.destroy();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('errors that are not connection failures pass through unchanged', async () => {
    const error = await withDeadline(1_000, () => client.sendCommand(['NOSUCHCOMMAND'])).catch((e: unknown) => e);
    expect(RedisUnavailableError.isInstance(error)).toBe(false);
    expect(String(error)).toMatch(/unknown command/i);
  });

  it('a killed connection reconnects and serves again', async () => {
    const victim = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: 'a2a-test-victim' });
    await victim.connect();
    await victim.set(`${prefix}k`, 'v');
    const id = await victim.clientId();
    await client.sendCommand(['CLIENT', 'KILL', 'ID', String(id)]);
    // While reconnecting: rejected at once (no offline queue) or served by the new connection.
    let value: string | null = null;
    for (let i = 0; i < 100 && value === null; i++) {
      value = await withDeadline(500, () => victim.get(`${prefix}k`)).catch(() => null);
      if (value === null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(value).toBe('v');
    await victim.quit();
  });

  it('scripts load again after SCRIPT FLUSH (NOSCRIPT falls back to EVAL)', async () => {
    const script = defineScript('return ARGV[1] .. KEYS[1]');
    expect(await script.run(client, [`${prefix}a`], ['x'])).toBe(`x${prefix}a`);
    await client.sendCommand(['SCRIPT', 'FLUSH']);
    expect(await script.run(client, [`${prefix}b`], ['y'])).toBe(`y${prefix}b`);
    expect(await script.run(client, [`${prefix}c`], ['z'])).toBe(`z${prefix}c`);
  });

  it('reconnect backoff grows from 50 ms and stays under the cap (+25 % jitter)', () => {
    expect(reconnectDelay(0, 2_000)).toBeGreaterThanOrEqual(50);
    expect(reconnectDelay(0, 2_000)).toBeLessThanOrEqual(63);
    for (let i = 0; i < 40; i++) expect(reconnectDelay(i, 2_000)).toBeLessThanOrEqual(2_500);
    expect(reconnectDelay(30, 2_000)).toBeGreaterThanOrEqual(2_000);
  });
});

describe('first connection', () => {
  it('connect() to an address where nothing listens rejects after firstConnectTimeoutMs with the address, not a silent hang', async () => {
    const dead = createRedisConnection({ url: 'redis://user:secret@127.0.0.1:1', firstConnectTimeoutMs: 300, maxReconnectDelayMs: 50 });
    const error = await dead.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^No Redis answered at 127\.0\.0\.1:1 within 300 ms \(.+\): check the URL, or start Redis$/);
    expect((error as Error).message).not.toMatch(/secret|user/);
    // Commands on the same client report it as the store's typed 503.
    expect(RedisUnavailableError.isInstance(toUnavailable(error))).toBe(true);
  });

  it('refuses a negative firstConnectTimeoutMs', () => {
    expect(() => createRedisConnection({ firstConnectTimeoutMs: -1 })).toThrow(RangeError);
  });
});
