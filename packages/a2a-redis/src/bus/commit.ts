import type { TaskCommit, TaskCommitEvent, TaskRecord, TaskStore, TaskWriteOptions } from '@a2aplane/a2a-server-express';
import { storeWriter } from '../store/redis-task-store.js';
import type { CancelRegistrations } from './cancel-registrations.js';
import type { EventLogDeps } from './event-log.js';
import type { ReplicaLease } from './replica-lease.js';
import { COMMIT } from './scripts.js';

interface CommitDeps extends EventLogDeps {
  registrations: CancelRegistrations;
  lease: ReplicaLease | undefined;
  maxEvents: number;
  liveTtlMs: number;
  retentionMs: number;
}

/**
 * The bus's `committerFor`: the atomic write-and-append of decision 0039 through `store`'s own
 * UPSERT code, carrying the task's cancel registration when nothing of it was sent yet. Only a
 * store on the bus's very connection is written here (another client may be another Redis).
 */
export function createCommitter(deps: CommitDeps): (store: TaskStore) => TaskCommit | undefined {
  const { client, keys, run, registrations, lease } = deps;
  return (store) => {
    const writer = storeWriter(store);
    if (writer === undefined || writer.client !== client) return undefined;
    return async (record: TaskRecord, writeOptions: TaskWriteOptions, events: readonly TaskCommitEvent[]) => {
      const prepared = writer.prepareUpsert(record, writeOptions);
      const { tenant } = record;
      const taskId = record.task.id;
      const running = !prepared.terminal;
      // The task's cancel registration, if nothing of it was sent yet: an ending write drops it, a running one records it.
      const registration = registrations.take(tenant, taskId, running);
      const scriptKeys = prepared.keys;
      scriptKeys.push(keys.events(tenant, taskId));
      const args = prepared.args;
      args.push(String(deps.maxEvents), String(deps.liveTtlMs), String(deps.retentionMs), String(events.length));
      for (const event of events) args.push(JSON.stringify(event.event), event.final ? '1' : '0');
      const carried = registration !== undefined && running && lease !== undefined;
      if (carried) {
        const record = lease.registration(registration.key);
        scriptKeys.push(...record.keys);
        args.push(...record.args);
      }
      let reply: unknown[];
      try {
        reply = (await run(() => COMMIT.run(client, scriptKeys, args))) as unknown[];
      } catch (error) {
        if (registration) registrations.refused(registration);
        throw error;
      }
      if (reply[0] !== 'ok') {
        if (registration) registrations.refused(registration);
        prepared.revision(reply);
      }
      if (carried) registrations.committed(registration, Number(reply[2]) === 1);
      return { revision: Number(reply[1]), ids: reply.slice(3) as string[] };
    };
  };
}
