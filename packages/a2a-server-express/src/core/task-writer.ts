import {
  applyStreamResponse,
  InternalError,
  isInterruptedTaskState,
  isTerminalTaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2aplane/a2a-types';
import { isoNow } from '../agent/iso-now.js';
import type { TaskCommit, TaskEventBus } from '../bus/task-event-bus.js';
import { type StoredPushConfig, type StoredTask, type TaskKey, TaskRevisionConflictError, type TaskStore } from '../store/task-store.js';
import { notifyPushConfigs } from './push-notify.js';
import type { PushSender } from './types.js';

/** What a listener of a task receives: events in order (`id`: the bus's event id), then at most one end or error. */
export type RuntimeSignal =
  | { type: 'event'; id: string; event: StreamResponse; final: boolean }
  | { type: 'end' }
  | { type: 'error'; error: unknown };

export interface RuntimeDeps {
  store: TaskStore;
  bus: TaskEventBus;
  /** The bus's atomic write-and-append for `store`, when it has one (`TaskEventBus.committerFor`). */
  commit?: TaskCommit | undefined;
  pushSender: PushSender | undefined;
  onAgentError(message: string): void;
}

/** The runtime a writer works for: its listeners, and the end of its run when another replica ended the task. */
export interface WriterHost {
  emit(signal: RuntimeSignal): void;
  /** Another replica ended the task (its end is adopted and told): the run stops, later events are dropped. */
  endedElsewhere(): void;
}

/** Writes of one event that may meet a compare-and-set conflict before the task fails as on a store error. */
const MAX_WRITE_ATTEMPTS = 3;

const isFinalState = (task: Task): boolean => isTerminalTaskState(task.status.state) || isInterruptedTaskState(task.status.state);

type Step = { wire: StreamResponse; final: boolean; task: Task };

const DELIVERED: Promise<void> = Promise.resolve();

/**
 * The task as stored and how an event gets there: folded into the task, written (compare-and-set
 * on `revision`), appended to the bus's log, then told to the listeners and the push configs.
 * Runs inside its runtime's write queue; the runtime decides which events reach it.
 */
export class TaskWriter {
  /** Id of the newest event this writer published (`undefined`: none since it was made). */
  lastEventId: string | undefined;
  /** The user message that starts a new task, and a new task's inline push config (`TaskRuntime.beginRun`). */
  firstMessage: Message | undefined;
  pushConfig: StoredPushConfig | undefined;

  constructor(
    private readonly key: TaskKey,
    private readonly owner: string,
    private readonly contextId: string,
    private readonly deps: RuntimeDeps,
    private readonly host: WriterHost,
    public task: Task | undefined,
    /** `StoredTask.revision` of `task` as last read or written (0: not stored yet). */
    private revision: number,
  ) {}

  /** Folds an event into the task, stores it, appends it to the log and fans it out. */
  async apply(response: StreamResponse, attempt = 1): Promise<void> {
    const previous = this.task;
    const next = foldEvent(previous, response, this.contextId, this.firstMessage);
    if (!next) return;
    // The first event that creates a task is sent as the whole Task, so a stream always starts with it.
    const step = { wire: previous ? response : { task: next }, final: isFinalState(next), task: next };
    // Stored first (or with the event, in one step): a task the store refused (too large, store down) is not what readers see.
    let ids: string[] | undefined;
    try {
      ids = await this.write(previous, next, [step]);
    } catch (error) {
      if (!TaskRevisionConflictError.isInstance(error) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
      return this.afterConflict(response, attempt);
    }
    if (ids) await this.deliver(step, ids[0] as string);
    else await this.afterWrite(previous, step, this.revision);
  }

  /**
   * A burst of this task's events folded into one store write, then published one by one with that
   * write's revision (a snapshot at that revision holds them all, so subscribers skip them as they
   * skip any event their snapshot holds). False, having written nothing, when an event would change
   * nothing or come after a terminal state, or the store refuses the write (full, down, another
   * replica's write): the caller then goes event by event. A failure after the write throws.
   */
  async applyBurst(responses: readonly StreamResponse[]): Promise<boolean> {
    let previous = this.task;
    const steps: Step[] = [];
    let task = previous;
    try {
      for (const response of responses) {
        if (task && isTerminalTaskState(task.status.state)) return false;
        const next = foldEvent(task, response, this.contextId, this.firstMessage);
        if (!next) return false;
        steps.push({ wire: task ? response : { task: next }, final: isFinalState(next), task: next });
        task = next;
      }
    } catch {
      return false;
    }
    const written = task as Task;
    let ids: string[] | undefined;
    try {
      ids = await this.write(previous, written, steps);
    } catch {
      return false;
    }
    const revision = this.revision;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index] as Step;
      if (ids) await this.deliver(step, ids[index] as string);
      else await this.afterWrite(previous, step, revision);
      previous ??= written;
    }
    return true;
  }

  /**
   * Stores `next` (compare-and-set on `revision`), with the steps' events in one step when the bus
   * can; else the caller publishes them (`ids` undefined). The inline push config of a new task is
   * stored between the write and the first event, so that write takes no commit.
   */
  private async write(previous: Task | undefined, next: Task, steps: Step[]): Promise<string[] | undefined> {
    const record = { tenant: this.key.tenant, owner: this.owner, task: next, updatedAt: Date.now() };
    const commit = previous === undefined && this.pushConfig !== undefined ? undefined : this.deps.commit;
    let revision: number;
    let ids: string[] | undefined;
    if (commit) ({ revision, ids } = await commit(record, { expectedRevision: this.revision }, steps.map(toCommitEvent)));
    else revision = await this.deps.store.upsert(record, { expectedRevision: this.revision });
    this.task = next;
    this.revision = revision;
    return ids;
  }

  /** After the store took an event (`previous`: the task before it): a new task's push config, then the event in the log and out. */
  private async afterWrite(previous: Task | undefined, step: Step, revision: number): Promise<void> {
    const { store, bus } = this.deps;
    if (!previous && this.pushConfig) {
      await store.putPushConfig(this.key, this.pushConfig);
      this.pushConfig = undefined;
    }
    const id = await bus.publish(this.key, { event: step.wire, final: step.final, revision });
    await this.deliver(step, id);
  }

  /**
   * An event in the bus's log (id `id`) goes to the listeners and the push configs. Without a push
   * sender it hands back one shared settled promise: no async call per event of every task.
   */
  private deliver(step: Step, id: string): Promise<void> {
    this.lastEventId = id;
    this.host.emit({ type: 'event', id, event: step.wire, final: step.final });
    return this.deps.pushSender === undefined ? DELIVERED : notifyPushConfigs(this.deps, this.key, step.wire, step.task);
  }

  /**
   * Another replica wrote the task since it was read. When that write ended the task (a CancelTask
   * that found no runner), the stored end is adopted and told to the listeners and the run stops
   * (`WriterHost.endedElsewhere`). Otherwise the event is folded onto the stored task and written again.
   */
  private async afterConflict(response: StreamResponse, attempt: number): Promise<void> {
    const stored = await this.deps.store.get(this.key);
    if (stored === undefined) throw new InternalError({ message: 'The task is no longer stored' });
    this.adopt(stored);
    if (!isTerminalTaskState(stored.task.status.state)) return this.apply(response, attempt + 1);
    this.host.endedElsewhere();
    const log = await this.deps.bus.read(this.key);
    const event: StreamResponse = {
      statusUpdate: { taskId: this.key.taskId, contextId: stored.task.contextId ?? this.contextId, status: stored.task.status },
    };
    this.host.emit({ type: 'event', id: log?.lastId ?? this.lastEventId ?? '0', event, final: true });
  }

  /** Takes the task as stored (read after another replica wrote it). */
  adopt(stored: StoredTask): void {
    this.task = stored.task;
    this.revision = stored.revision;
  }

  /** A continuation's user message joins the stored task's history (before its executor runs). */
  async appendToHistory(message: Message): Promise<void> {
    const current = this.task as Task;
    const next = { ...current, history: [...(current.history ?? []), message] };
    this.revision = await this.deps.store.upsert(
      { tenant: this.key.tenant, owner: this.owner, task: next, updatedAt: Date.now() },
      { expectedRevision: this.revision },
    );
    this.task = next;
  }
}

const toCommitEvent = (step: Step) => ({ event: step.wire, final: step.final });

/**
 * `previous` with one event folded in (`undefined`: the event changes nothing), completed with the
 * runtime's context id, a timestamp and, on a new task, the user message that started it. Pure.
 */
function foldEvent(previous: Task | undefined, response: StreamResponse, contextId: string, first: Message | undefined): Task | undefined {
  let next = applyStreamResponse(previous, response);
  if (!next) return undefined;
  if (response.task && previous) next = { ...next, history: response.task.history ?? previous.history };
  if (next.contextId === undefined) next = { ...next, contextId };
  if (next.status.timestamp === undefined) next = { ...next, status: { ...next.status, timestamp: isoNow() } };
  if (!previous && first) {
    const history = next.history ?? [];
    if (!history.some((m) => m.messageId === first.messageId)) next = { ...next, history: [first, ...history] };
  }
  return next;
}
