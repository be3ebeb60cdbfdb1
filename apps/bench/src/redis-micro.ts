// Run: cd apps/bench && npx tsx src/redis-micro.ts [calls] [rounds]   (a quick before/after check, not a suite of `pnpm bench`).
// The server core (createA2AServer.handle, no HTTP) on the Redis task store and event bus: blocking
// SendMessage in task mode (submitted, working, one artifact, completed), 32 at a time. Per call:
// Redis commands sent, this process's CPU and the CPU of a private redis-server started for the run
// (so other users of the machine's Redis do not count; REDIS_MICRO_URL uses another Redis instead,
// without Redis CPU). `A2A_REDIS_BASELINE=<another checkout's root>` (its packages built) adds the
// same run with that checkout's a2a-server-express and a2a-redis: before and after, interleaved.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { microCard as card } from './lib/fixtures.js';

type ServerModule = typeof import('@a2aplane/a2a-server-express');
type RedisModule = typeof import('@a2aplane/a2a-redis');
type Client = Parameters<RedisModule['createRedisTaskStore']>[0]['client'];

interface Build {
  name: string;
  server: ServerModule;
  redis: RedisModule;
}

const calls = Number(process.argv[2] ?? 5_000);
const rounds = Number(process.argv[3] ?? 3);
const concurrency = 32;

async function loadBuild(name: string, root: string): Promise<Build> {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  return {
    name,
    server: (await import(at('packages/a2a-server-express/dist/index.js'))) as ServerModule,
    redis: (await import(at('packages/a2a-redis/dist/index.js'))) as RedisModule,
  };
}

/** A private redis-server on a free port (no persistence), or `undefined` when none can be started. */
async function startRedis(): Promise<{ url: string; process: ChildProcess } | undefined> {
  const port = 20_000 + Math.floor(Math.random() * 30_000);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = await new Promise<boolean>((done) => {
    child.once('error', () => done(true));
    setTimeout(() => done(false), 300);
  });
  return failed || child.exitCode !== null ? undefined : { url: `redis://127.0.0.1:${port}`, process: child };
}

/** Counts the commands a client (and its duplicates) sends. */
function counting(client: Client, count: { commands: number }): Client {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'sendCommand')
        return (args: string[]) => {
          count.commands += 1;
          return target.sendCommand(args);
        };
      if (property === 'subscribe' || property === 'unsubscribe')
        return (channel: string, listener: (message: string) => void) => {
          count.commands += 1;
          return target[property](channel, listener);
        };
      if (property === 'duplicate') return () => counting(target.duplicate(), count);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function redisCpuSeconds(client: Client): Promise<number> {
  const info = String(await client.sendCommand(['INFO', 'cpu']));
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

async function run(build: Build, url: string, measureRedis: boolean): Promise<{ cpu: number; redisCpu: number; commands: number }> {
  const raw = build.redis.createRedisConnection({ url, name: `redis-micro-${build.name}` });
  await raw.connect();
  const count = { commands: 0 };
  const client = counting(raw as unknown as Client, count);
  const keyPrefix = `a2a-redis-micro:${process.pid}:${randomUUID()}:`;
  const store = build.redis.createRedisTaskStore({ client, keyPrefix, ttlMs: 60_000, liveTtlMs: 120_000, maxTasks: 1_000_000 });
  const eventBus = build.redis.createRedisTaskEventBus({ client, keyPrefix, retentionMs: 60_000, liveTtlMs: 120_000 });
  const { createTaskUpdater } = build.server;
  const server = build.server.createA2AServer({
    card,
    store,
    eventBus,
    executor: {
      async execute(context, events) {
        const t = createTaskUpdater(context, events);
        t.submit();
        t.startWork();
        t.addArtifact([{ text: 'echo' }], { artifactId: 'a', lastChunk: true });
        t.complete();
      },
    },
  });
  let n = 0;
  let total = calls;
  const worker = async (): Promise<void> => {
    while (n < total) {
      n += 1;
      const r = await server.handle({
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        version: '1.0',
      });
      if (r.kind !== 'result') throw new Error(JSON.stringify(r));
    }
  };
  total = Math.min(2_000, calls);
  await Promise.all(Array.from({ length: concurrency }, worker)); // warm-up
  await sleep(20);
  n = 0;
  total = calls;
  count.commands = 0;
  const redis0 = measureRedis ? await redisCpuSeconds(raw as unknown as Client) : Number.NaN;
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  await sleep(20); // the turn's deferred writes (lease, unregister) go out
  const cpu = process.cpuUsage(cpu0);
  const commands = count.commands;
  const redisCpu = measureRedis ? (await redisCpuSeconds(raw as unknown as Client)) - redis0 : Number.NaN;
  await server.close();
  await eventBus.close();
  for await (const keys of raw.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 1_000 })) if (keys.length > 0) await raw.del(keys);
  raw.destroy();
  return { cpu: (cpu.user + cpu.system) / calls, redisCpu: (redisCpu * 1e6) / calls, commands: commands / calls };
}

const builds = [await loadBuild('after', resolve(import.meta.dirname, '../../..'))];
if (process.env.A2A_REDIS_BASELINE) builds.unshift(await loadBuild('before', process.env.A2A_REDIS_BASELINE));
const fixed = process.env.REDIS_MICRO_URL;
const own = fixed === undefined ? await startRedis() : undefined;
const url = fixed ?? own?.url ?? 'redis://127.0.0.1:6379';
console.log(`${calls} blocking SendMessage (task mode), ${concurrency} at a time, on ${own ? 'a private redis-server' : url}`);
try {
  for (let round = 1; round <= rounds; round++) {
    for (const build of round % 2 === 1 ? builds : [...builds].reverse()) {
      const r = await run(build, url, own !== undefined);
      console.log(
        `round ${round} ${build.name}: ${r.commands.toFixed(2)} commands/call, process CPU ${r.cpu.toFixed(0)} µs/call, Redis CPU ${Number.isNaN(r.redisCpu) ? 'n/a' : `${r.redisCpu.toFixed(0)} µs/call`}`,
      );
    }
  }
} finally {
  own?.process.kill('SIGTERM');
}
