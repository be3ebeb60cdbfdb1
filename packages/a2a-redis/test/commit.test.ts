import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  InMemoryTaskStore,
  type TaskCommit,
  type TaskRecord,
  TaskRevisionConflictError,
  TaskStoreFullError,
} from '@a2aplane/a2a-server-express';
import type { StreamResponse, Task } from '@a2aplane/a2a-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus, type RedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import type { RedisClientLike } from '../src/connection.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

type TaskState = Task['status']['state'];

const record = (taskId: string, state: TaskState): TaskRecord => ({
  tenant: 't1',
  owner: 'alice',
  updatedAt: 1_000,
  task: { id: taskId, contextId: 'ctx', status: { state } },
});
const status = (taskId: string, state: TaskState): StreamResponse => ({ statusUpdate: { taskId, contextId: 'ctx', status: { state } } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The commands a client (and its duplicates) sends, by name (EVALSHA by script), and its pub/sub calls. */
function countingClient(client: RedisClientLike, log: string[]): RedisClientLike {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'sendCommand')
        return (args: string[]) => {
          log.push(args[0] === 'EVALSHA' ? `EVALSHA ${args[1]}` : (args[0] as string));
          return target.sendCommand(args);
        };
      if (property === 'subscribe' || property === 'unsubscribe')
        return (channel: string, listener: (message: string) => void) => {
          log.push(property.toUpperCase());
          return target[property](channel, listener);
        };
      if (property === 'duplicate') return () => countingClient(target.duplicate(), log);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('one script per event burst (decision 0039, needs Redis)', () => {
  let client: TestRedisClient;
  let other: TestRedisClient;
  const prefixes: string[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  const prefix = () => {
    const keyPrefix = testKeyPrefix('commit');
    prefixes.push(keyPrefix);
    return keyPrefix;
  };
  const busOn = (on: RedisClientLike, keyPrefix: string, leaseMs = 10_000): RedisTaskEventBus => {
    const bus = createRedisTaskEventBus({ client: on, keyPrefix, orphanRecovery: { leaseMs } });
    closers.push(() => bus.close());
    return bus;
  };

  beforeAll(async () => {
    client = await connectTestRedis('a2a-redis commit tests');
    other = await connectTestRedis('a2a-redis commit tests');
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    for (const p of prefixes) await cleanKeys(client, p);
    await client.quit();
    await other.quit();
  });

  it('writes the task and appends its events in one step, all with the revision of that write', async () => {
    const keyPrefix = prefix();
    const store = createRedisTaskStore({ client, keyPrefix });
    const bus = busOn(client, keyPrefix);
    const commit = bus.committerFor?.(store) as TaskCommit;
    expect(commit).toBeTypeOf('function');
    const events = [
      { event: status('a', 'TASK_STATE_SUBMITTED'), final: false },
      { event: status('a', 'TASK_STATE_WORKING'), final: false },
    ];
    const first = await commit(record('a', 'TASK_STATE_WORKING'), { expectedRevision: 0 }, events);
    expect(first.revision).toBe(1);
    const second = await commit(record('a', 'TASK_STATE_COMPLETED'), { expectedRevision: 1 }, [
      { event: status('a', 'TASK_STATE_COMPLETED'), final: true },
    ]);
    expect(second.revision).toBe(2);
    const log = await bus.read({ tenant: 't1', taskId: 'a' });
    expect(log?.events.map((e) => [e.id, e.event.statusUpdate?.status.state, e.final, e.revision])).toEqual([
      [first.ids[0], 'TASK_STATE_SUBMITTED', false, 1],
      [first.ids[1], 'TASK_STATE_WORKING', false, 1],
      [second.ids[0], 'TASK_STATE_COMPLETED', true, 2],
    ]);
    const stored = await store.get({ tenant: 't1', taskId: 'a' });
    expect([stored?.revision, stored?.task.status.state]).toEqual([2, 'TASK_STATE_COMPLETED']);
    // A final event gives the log the retention TTL, as publish does.
    expect(await client.pTTL(bus.keys.events('t1', 'a'))).toBeLessThanOrEqual(10 * 60_000);
  });

  it('a refused write (stale revision, too large) appends nothing and rejects as upsert does', async () => {
    const keyPrefix = prefix();
    const store = createRedisTaskStore({ client, keyPrefix, maxTaskBytes: 300 });
    const bus = busOn(client, keyPrefix);
    const commit = bus.committerFor?.(store) as TaskCommit;
    await commit(record('b', 'TASK_STATE_WORKING'), { expectedRevision: 0 }, [{ event: status('b', 'TASK_STATE_WORKING'), final: false }]);
    const stale = await commit(record('b', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 }, [
      { event: status('b', 'TASK_STATE_COMPLETED'), final: true },
    ]).catch((e: unknown) => e);
    expect(TaskRevisionConflictError.isInstance(stale)).toBe(true);
    expect((stale as TaskRevisionConflictError).actualRevision).toBe(1);
    const big = {
      ...record('b', 'TASK_STATE_WORKING'),
      task: { ...record('b', 'TASK_STATE_WORKING').task, metadata: { pad: 'x'.repeat(400) } },
    };
    const full = await commit(big, { expectedRevision: 1 }, [{ event: status('b', 'TASK_STATE_WORKING'), final: false }]).catch(
      (e: unknown) => e,
    );
    expect(TaskStoreFullError.isInstance(full)).toBe(true);
    const log = await bus.read({ tenant: 't1', taskId: 'b' });
    expect(log?.events.map((e) => e.event.statusUpdate?.status.state)).toEqual(['TASK_STATE_WORKING']);
    expect((await store.get({ tenant: 't1', taskId: 'b' }))?.revision).toBe(1);
  });

  it('offers no commit for a store on another connection or of another kind', () => {
    const keyPrefix = prefix();
    const bus = busOn(client, keyPrefix);
    expect(bus.committerFor?.(createRedisTaskStore({ client: other, keyPrefix }))).toBeUndefined();
    expect(bus.committerFor?.(new InMemoryTaskStore())).toBeUndefined();
  });

  it('a run that ends in its first write never registers or subscribes; a running one is registered by that write', async () => {
    const keyPrefix = prefix();
    const log: string[] = [];
    const counted = countingClient(client as unknown as RedisClientLike, log);
    const store = createRedisTaskStore({ client: counted, keyPrefix });
    const bus = busOn(counted, keyPrefix);
    const canceller = busOn(other as unknown as RedisClientLike, keyPrefix);
    const commit = bus.committerFor?.(store) as TaskCommit;
    const replicaTasks = bus.keys.replicaTasks(bus.replicaId as string);
    await sleep(50); // the lease's first heartbeat
    log.length = 0;

    // Ends in its first write: the cancel registration made in the same turn is dropped.
    const done = { tenant: 't1', taskId: 'done' };
    const offDone = bus.onCancel(done, () => undefined);
    await commit(record('done', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 }, [
      { event: { task: record('done', 'TASK_STATE_COMPLETED').task }, final: true },
    ]);
    offDone();
    await sleep(50);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^EVALSHA /);
    expect(await client.sIsMember(replicaTasks, JSON.stringify(['t1', 'done']))).toBe(0);
    expect(await canceller.requestCancel(done, {})).toBe(false);

    // Still running after its first write: that write registers it, the cancel subscription follows.
    const running = { tenant: 't1', taskId: 'running' };
    const got: unknown[] = [];
    const offRunning = bus.onCancel(running, (request) => got.push(request));
    await commit(record('running', 'TASK_STATE_WORKING'), { expectedRevision: 0 }, [
      { event: { task: record('running', 'TASK_STATE_WORKING').task }, final: false },
    ]);
    expect(await client.sIsMember(replicaTasks, JSON.stringify(['t1', 'running']))).toBe(1);
    expect(await client.get(bus.keys.runner('t1', 'running'))).toBe(bus.replicaId);
    let delivered = false;
    for (let i = 0; i < 100 && !delivered; i++) {
      delivered = await canceller.requestCancel(running, {});
      if (!delivered) await sleep(10);
    }
    expect(delivered).toBe(true);
    for (let i = 0; i < 100 && got.length === 0; i++) await sleep(5);
    expect(got).toEqual([{}]);
    offRunning();
    await sleep(50);
    expect(await client.sIsMember(replicaTasks, JSON.stringify(['t1', 'running']))).toBe(0);
  });

  it('a refused commit gives back the registration it carried: the task is registered and subscribed after all', async () => {
    const keyPrefix = prefix();
    const store = createRedisTaskStore({ client, keyPrefix });
    const bus = busOn(client, keyPrefix);
    const canceller = busOn(other as unknown as RedisClientLike, keyPrefix);
    const commit = bus.committerFor?.(store) as TaskCommit;
    const key = { tenant: 't1', taskId: 'refused' };
    await store.upsert(record('refused', 'TASK_STATE_WORKING'), { expectedRevision: 0 });
    const off = bus.onCancel(key, () => undefined);
    // Would end the task, so it takes the registration; a stale revision refuses it.
    const refused = await commit(record('refused', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 }, [
      { event: status('refused', 'TASK_STATE_COMPLETED'), final: true },
    ]).catch((e: unknown) => e);
    expect(TaskRevisionConflictError.isInstance(refused)).toBe(true);
    let delivered = false;
    for (let i = 0; i < 100 && !delivered; i++) {
      delivered = await canceller.requestCancel(key, {});
      if (!delivered) await sleep(10);
    }
    expect(delivered).toBe(true);
    const replicaTasks = bus.keys.replicaTasks(bus.replicaId as string);
    expect(await client.sIsMember(replicaTasks, JSON.stringify(['t1', 'refused']))).toBe(1);
    off();
  });

  describe('a replica serving blocking SendMessage in task mode', () => {
    let http: Server | undefined;
    afterEach(async () => {
      http?.closeAllConnections();
      await new Promise((resolve) => http?.close(resolve));
      http = undefined;
    });

    it('sends three commands per task: the admission script (decision 0131), the send-key claim and one commit script', async () => {
      const keyPrefix = prefix();
      const log: string[] = [];
      const counted = countingClient(client as unknown as RedisClientLike, log);
      const executor: AgentExecutor = {
        async execute(context, events) {
          const updater = createTaskUpdater(context, events);
          updater.submit();
          updater.startWork();
          updater.addArtifact([{ text: 'done' }], { artifactId: 'a-1' });
          updater.complete();
        },
      };
      const eventBus = busOn(counted, keyPrefix);
      const server = createA2AServer({
        card: createAgentCard({
          baseUrl: 'http://127.0.0.1',
          name: 'commit',
          description: 'answers with a task',
          skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
        }),
        executor,
        store: createRedisTaskStore({ client: counted, keyPrefix }),
        eventBus,
      });
      closers.push(() => server.close());
      http = createServer(createNodeHttpHandler(server));
      await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a/jsonrpc`;
      let id = 0;
      const send = async () => {
        const body = {
          jsonrpc: '2.0',
          id: ++id,
          method: 'SendMessage',
          params: { message: { messageId: `m-${keyPrefix}-${id}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        };
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify(body),
        });
        const reply = (await response.json()) as { result?: { task?: Task } };
        expect(reply.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
        return reply.result?.task as Task;
      };
      await send(); // the first call loads the script (and the lease's heartbeat runs)
      await sleep(50);
      log.length = 0;
      const tasks = [await send(), await send(), ...(await Promise.all(Array.from({ length: 8 }, send)))];
      await sleep(50);
      expect(log.filter((c) => c === 'SET')).toHaveLength(tasks.length);
      const scripts = log.filter((c) => c.startsWith('EVALSHA'));
      expect(scripts).toHaveLength(2 * tasks.length);
      // Two scripts, one call of each per task: the admission and the commit.
      expect(new Set(scripts).size).toBe(2);
      expect(log).toHaveLength(3 * tasks.length);
      // The log is complete: a resume anywhere replays every event of the task.
      const replay = await eventBus.read({ tenant: '', taskId: (tasks[0] as Task).id });
      expect(replay?.events.map((e) => Object.keys(e.event)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(replay?.events.at(-1)?.final).toBe(true);
    });
  });
});
