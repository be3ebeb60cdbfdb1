import type { OrphanedTaskHandler, TaskKey } from '@a2aplane/a2a-server-express';
import type { RedisClientLike } from '../connection.js';
import { ReplicaLostError } from '../errors.js';
import { parseTaskRef, type RedisKeys } from '../keys.js';
import { CLAIM, DROP_TASK, FORGET } from './lease-scripts.js';
import type { ReplicaLease } from './replica-lease.js';

interface OrphanSweeperDeps {
  client: RedisClientLike;
  keys: RedisKeys;
  run: <T>(fn: () => Promise<T>) => Promise<T>;
  lease: ReplicaLease;
  sweepMs: number;
  /** How long a claim keeps other sweepers off a task (a sweeper that dies mid-way is replaced after it). */
  claimMs: number;
  onOrphanedTask: (info: { key: TaskKey; replicaId: string }) => void;
  onError: (error: unknown) => void;
}

/** Tasks of one dead replica handled per sweep (the rest wait for the next one). */
const BATCH = 100;

/**
 * Finds the tasks of replicas whose lease expired and ends each FAILED (`REPLICA_LOST`) through
 * the server's handler: claimed first with SET NX so exactly one sweeper acts, then written with
 * the task's compare-and-set (so even a claim that expired mid-way cannot write twice), then
 * dropped from the dead replica's set. Runs on an unref'd timer, only while a server is attached
 * and this replica's own lease has been healthy for a whole lease.
 */
export class OrphanSweeper {
  handler: OrphanedTaskHandler | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(private readonly deps: OrphanSweeperDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.handler !== undefined && this.deps.lease.canJudgeOthers()) void this.sweep().catch(this.deps.onError);
    }, this.deps.sweepMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.handler = undefined;
  }

  /** One sweep (one at a time); resolves how many tasks this replica ended. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    const { client, keys, run, lease } = this.deps;
    const ids = ((await run(() => client.sendCommand(['SMEMBERS', keys.replicas()]))) as string[]).filter((id) => id !== lease.id);
    const alive = await Promise.all(ids.map((id) => run(() => client.sendCommand(['EXISTS', keys.replicaLease(id)]))));
    let ended = 0;
    for (const [i, id] of ids.entries()) {
      if (Number(alive[i]) === 1) continue;
      const refs = (await run(() => client.sendCommand(['SRANDMEMBER', keys.replicaTasks(id), String(BATCH)]))) as string[];
      if (refs.length === 0) {
        await run(() => FORGET.run(client, [keys.replicaLease(id), keys.replicaTasks(id), keys.replicas()], [id]));
        continue;
      }
      const outcomes = await Promise.all(refs.map((ref) => this.recover(id, ref)));
      ended += outcomes.filter(Boolean).length;
    }
    return ended;
  }

  /** Claims and ends one task of the dead replica `deadId`; resolves whether this replica wrote its failure. */
  private async recover(deadId: string, ref: string): Promise<boolean> {
    const { client, keys, run, lease } = this.deps;
    const key = parseTaskRef(ref);
    const handler = this.handler;
    if (key === undefined) {
      await run(() => client.sendCommand(['SREM', keys.replicaTasks(deadId), ref]));
      return false;
    }
    if (handler === undefined) return false;
    const claimKey = keys.orphanClaim(key.tenant, key.taskId);
    const claimed = await run(() =>
      CLAIM.run(
        client,
        [keys.replicaLease(deadId), keys.replicaTasks(deadId), keys.runner(key.tenant, key.taskId), claimKey],
        [ref, deadId, lease.id, String(this.deps.claimMs)],
      ),
    );
    if (Number(claimed) !== 1) return false;
    let wrote = false;
    try {
      wrote = await handler(key, new ReplicaLostError());
    } catch (error) {
      // The store or bus failed: the claim expires and a later sweep (here or elsewhere) tries again.
      this.deps.onError(error);
      return false;
    }
    await run(() =>
      DROP_TASK.run(client, [keys.replicaTasks(deadId), keys.runner(key.tenant, key.taskId), claimKey], [ref, deadId, lease.id]),
    );
    if (wrote) {
      try {
        this.deps.onOrphanedTask({ key, replicaId: deadId });
      } catch (error) {
        this.deps.onError(error);
      }
    }
    return wrote;
  }
}
