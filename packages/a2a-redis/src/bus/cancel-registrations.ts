import type { TaskCancelHandler, TaskCancelRequest, TaskKey } from '@a2aplane/a2a-server-express';
import type { RedisClientLike } from '../connection.js';
import type { RedisKeys } from '../keys.js';
import type { ReplicaLease } from './replica-lease.js';

/** The cancel registration of a task whose executor runs on this replica. */
interface Registration {
  readonly id: string;
  readonly key: TaskKey;
  readonly handler: TaskCancelHandler;
  /** `pending`: nothing sent yet; `sent`: subscribed (or about to be) and recorded; `dropped`: nothing to send. */
  state: 'pending' | 'sent' | 'dropped';
  /** A commit carried its record in the replica's task set: only the subscription is left to send. */
  carried: boolean;
  /** The SUBSCRIBE went out: the end needs an UNSUBSCRIBE. */
  subscribed: boolean;
  /** A registration of the same task it replaced, whose subscription it ends. */
  previous: Registration | undefined;
  channel: string;
  listener: ((message: string) => void) | undefined;
}

interface CancelRegistrationsDeps {
  keys: RedisKeys;
  lease: ReplicaLease | undefined;
  /** The bus's pub/sub connection, connected on first use. */
  pubsub(): Promise<RedisClientLike>;
  onError(error: unknown): void;
}

function parseCancel(message: string): TaskCancelRequest {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value === 'object' && value !== null) {
      const metadata = (value as { metadata?: unknown }).metadata;
      if (typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata))
        return { metadata: metadata as Record<string, unknown> };
    }
  } catch {
    // a malformed message still cancels
  }
  return {};
}

const localId = (tenant: string, taskId: string): string => `${tenant}\u0000${taskId}`;

/**
 * The cancel registrations of the tasks this replica runs (`TaskEventBus.onCancel`): a SUBSCRIBE
 * on the task's cancel channel, and the task's record in this replica's task set for the
 * sweepers (decision 0032). Both go out after the turn in which the run started, in one batch; a
 * commit of the task in that turn comes first (decision 0039): one that ends the task drops the
 * registration (the run is over before anyone could cancel it or find it orphaned), one that
 * leaves it running carries the record in its own script, atomically with the write.
 */
export class CancelRegistrations {
  private readonly byTask = new Map<string, Registration>();
  private pending: Registration[] = [];
  private flushing: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(private readonly deps: CancelRegistrationsDeps) {}

  /** Registers `handler` for `key` (replacing the previous one); returns the function that ends it. */
  add(key: TaskKey, handler: TaskCancelHandler): () => void {
    const id = localId(key.tenant, key.taskId);
    const previous = this.byTask.get(id);
    const registration: Registration = {
      id,
      key,
      handler,
      state: 'pending',
      carried: false,
      subscribed: false,
      previous: previous?.state === 'sent' ? previous : previous?.previous,
      channel: '',
      listener: undefined,
    };
    if (previous) previous.state = previous.state === 'sent' ? 'sent' : 'dropped';
    this.byTask.set(id, registration);
    this.queue(registration);
    return () => this.remove(registration);
  }

  /**
   * A commit of the task is about to leave (decision 0039). Takes its registration if nothing of
   * it was sent: `running` false drops it; true lets the commit carry its record (with a lease).
   * The commit reports back with `committed` or `refused`.
   */
  take(tenant: string, taskId: string, running: boolean): Registration | undefined {
    const registration = this.byTask.get(localId(tenant, taskId));
    if (registration === undefined || registration.state !== 'pending' || registration.carried) return undefined;
    if (!running) {
      registration.state = 'dropped';
      return registration;
    }
    if (this.deps.lease === undefined) return undefined;
    registration.carried = true;
    return registration;
  }

  /** The commit that carried `registration`'s record wrote it; `had`: the lease was still held. */
  committed(registration: Registration, had: boolean): void {
    this.deps.lease?.recorded(registration.key, had);
  }

  /** The commit that took `registration` wrote nothing: what it would have done goes out after all. */
  refused(registration: Registration): void {
    if (this.closed || this.byTask.get(registration.id) !== registration) return;
    if (registration.state === 'dropped') {
      registration.state = 'pending';
      this.queue(registration);
    }
    if (registration.carried) {
      registration.carried = false;
      // Already flushed without its record: record it now.
      if (registration.state === 'sent') this.deps.lease?.register([registration.key]);
    }
  }

  close(): void {
    this.closed = true;
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
    this.pending = [];
    this.byTask.clear();
  }

  private queue(registration: Registration): void {
    this.pending.push(registration);
    this.flushing ??= setImmediate(() => this.flush());
  }

  private remove(registration: Registration): void {
    if (this.byTask.get(registration.id) !== registration) return;
    this.byTask.delete(registration.id);
    const sent = registration.state === 'sent';
    registration.state = 'dropped';
    if (sent || registration.carried) this.deps.lease?.unregister(registration.key);
    const { listener } = registration;
    if (!registration.subscribed || listener === undefined) return;
    void this.deps
      .pubsub()
      .then((sub) => sub.unsubscribe(registration.channel, listener))
      .catch(this.deps.onError);
  }

  private flush(): void {
    this.flushing = undefined;
    const batch = this.pending.filter((r) => r.state === 'pending' && this.byTask.get(r.id) === r);
    this.pending = [];
    if (this.closed || batch.length === 0) return;
    const { keys, lease, onError } = this.deps;
    const records: TaskKey[] = [];
    for (const registration of batch) {
      registration.state = 'sent';
      if (!registration.carried) records.push(registration.key);
      registration.channel = keys.cancelChannel(registration.key.tenant, registration.key.taskId);
      const { handler } = registration;
      registration.listener = (message: string): void => {
        try {
          handler(parseCancel(message));
        } catch (error) {
          onError(error);
        }
      };
    }
    if (records.length > 0) lease?.register(records);
    void this.deps
      .pubsub()
      .then(async (sub) => {
        await Promise.all(
          batch.map(async (registration) => {
            if (this.byTask.get(registration.id) !== registration) return;
            registration.subscribed = true;
            const previous = registration.previous;
            registration.previous = undefined;
            if (previous?.subscribed && previous.listener) await sub.unsubscribe(previous.channel, previous.listener);
            await sub.subscribe(registration.channel, registration.listener as (message: string) => void);
          }),
        );
      })
      .catch(onError);
  }
}
