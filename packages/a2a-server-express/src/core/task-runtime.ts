import {
  A2AError,
  applyStreamResponse,
  InternalError,
  InvalidAgentResponseError,
  isInterruptedTaskState,
  isTerminalTaskState,
  MessageSchema,
  type Message,
  type ParseResult,
  type Part,
  parseWith,
  type StreamResponse,
  type Task,
  TaskArtifactUpdateEventSchema,
  TaskNotCancelableError,
  TaskSchema,
  type TaskStatus,
  TaskStatusUpdateEventSchema,
} from '@a2aplane/a2a-types';
import type { AgentEvent, EventSink, RequestContext } from '../agent/executor.js';
import { isoNow } from '../agent/iso-now.js';
import type { TaskCommit, TaskEventBus } from '../bus/task-event-bus.js';
import { type StoredPushConfig, type TaskKey, TaskRevisionConflictError, type TaskStore, taskMapKey } from '../store/task-store.js';
import { fastParseArtifactUpdate, fastParseMessage, fastParseStatusUpdate, fastParseTask } from './event-validation.js';
import type { ExecutionSignal } from './execution-signal.js';
import { notifyPushConfigs } from './push-notify.js';
import type { PushSender } from './types.js';
import { newId } from '../agent/new-id.js';

/** What a listener of a task receives: events in order (`id`: the bus's event id), then at most one end or error. */
export type RuntimeSignal =
  | { type: 'event'; id: string; event: StreamResponse; final: boolean }
  | { type: 'end' }
  | { type: 'error'; error: unknown };

export type Listener = (signal: RuntimeSignal) => void;

/** What cancel and close need of a running execution. */
interface RunningExecution {
  signal: ExecutionSignal;
  context: RequestContext;
  sink: EventSink;
}

export interface RuntimeDeps {
  store: TaskStore;
  bus: TaskEventBus;
  /** The bus's atomic write-and-append for `store`, when it has one (`TaskEventBus.committerFor`). */
  commit?: TaskCommit | undefined;
  pushSender: PushSender | undefined;
  onAgentError(message: string): void;
}

const parsedOrUndefined = <T>(result: ParseResult<T>): T | undefined => (result.success ? result.data : undefined);

/** Classifies an executor event by shape and validates it. */
export function toStreamResponse(event: AgentEvent): StreamResponse | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const value = event as unknown as Record<string, unknown>;
  // The fast parsers vouch for the common valid events; anything they do not pass goes to zod.
  if ('messageId' in value && 'role' in value) {
    const message = fastParseMessage(value) ?? parsedOrUndefined(parseWith(MessageSchema, value));
    return message ? { message } : undefined;
  }
  if ('artifact' in value && 'taskId' in value) {
    const artifactUpdate = fastParseArtifactUpdate(value) ?? parsedOrUndefined(parseWith(TaskArtifactUpdateEventSchema, value));
    return artifactUpdate ? { artifactUpdate } : undefined;
  }
  if ('status' in value && 'taskId' in value) {
    const statusUpdate = fastParseStatusUpdate(value) ?? parsedOrUndefined(parseWith(TaskStatusUpdateEventSchema, value));
    return statusUpdate ? { statusUpdate } : undefined;
  }
  if ('status' in value && 'id' in value) {
    const task = fastParseTask(value) ?? parsedOrUndefined(parseWith(TaskSchema, value));
    return task ? { task } : undefined;
  }
  return undefined;
}

/**
 * The FAILED status the server writes when a task breaks (the agent's protocol, a store refusal)
 * or is ended from outside (a governance limit, a lost replica): with `error`, its ErrorInfo rides
 * in a data part after the text, so a client can tell why without parsing the text.
 */
function failedStatus(taskId: string, contextId: string, text: string, error?: A2AError): TaskStatus {
  const parts: Part[] = [{ text }];
  if (error) parts.push({ data: error.toErrorInfo() as unknown as Record<string, unknown> });
  return {
    state: 'TASK_STATE_FAILED',
    timestamp: isoNow(),
    message: { messageId: newId(), role: 'ROLE_AGENT', taskId, contextId, parts },
  };
}

const toCommitEvent = (step: { wire: StreamResponse; final: boolean }) => ({ event: step.wire, final: step.final });

/** Writes of one event that may meet a compare-and-set conflict before the task fails as on a store error. */
const MAX_WRITE_ATTEMPTS = 3;

const isFinalState = (task: Task | undefined): boolean =>
  task !== undefined && (isTerminalTaskState(task.status.state) || isInterruptedTaskState(task.status.state));

/**
 * The live side of one task: a serial queue for every write (so the store's event log, the
 * listeners and push deliveries all see one order), the aggregated task, and its listeners.
 */
export class TaskRuntime {
  task: Task | undefined;
  /** The message an executor answered with instead of creating a task. */
  messageResponse: Message | undefined;
  /** Set once the executor broke the protocol; later events are dropped. */
  invalid = false;
  running = false;
  /** The user message that starts a new task; put into its history when the task is created. */
  pendingUserMessage: Message | undefined;
  pendingPushConfig: StoredPushConfig | undefined;
  /** `StoredTask.revision` of `task` as this runtime last read or wrote it (0: not stored yet). */
  revision: number;
  /** Id of the newest event this runtime published (`undefined`: none since it was made). */
  lastEventId: string | undefined;
  /** The running executor's cancel hooks; `undefined` between runs. */
  execution: RunningExecution | undefined;
  /** `taskMapKey(key)`, made once. */
  readonly mapKey: string;
  private readonly listeners = new Set<Listener>();
  private chain: Promise<unknown> = Promise.resolve();
  /** Counts `enqueue` calls, so a batch knows whether anything was queued after it. */
  private queued = 0;
  /** Executor events waiting for one queue step, and the `queued` count when that step was queued. */
  private batch: AgentEvent[] | undefined;
  private batchTicket = 0;

  constructor(
    readonly key: TaskKey,
    readonly owner: string,
    readonly contextId: string,
    private readonly deps: RuntimeDeps,
    task?: Task,
    revision = 0,
  ) {
    this.task = task;
    this.revision = revision;
    this.lastEventId = undefined;
    this.mapKey = taskMapKey(key);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  get idle(): boolean {
    return !this.running && this.listeners.size === 0;
  }

  /** Runs `fn` after every write queued before it. */
  enqueue<T>(fn: () => Promise<T> | T): Promise<T> {
    this.queued += 1;
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  addListener(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(signal: RuntimeSignal): void {
    if (this.listeners.size === 0) return;
    if (this.listeners.size === 1) {
      for (const listener of this.listeners) listener(signal);
      return;
    }
    for (const listener of [...this.listeners]) listener(signal);
  }

  endListeners(): void {
    this.emit({ type: 'end' });
  }

  failListeners(error: unknown): void {
    this.emit({ type: 'error', error });
  }

  /**
   * Queues an event from the executor. Events published back to back (nothing else queued in
   * between) share one queue step, in order: one promise hop per burst instead of per event.
   */
  publishFromAgent(event: AgentEvent): void {
    if (this.batch !== undefined && this.batchTicket === this.queued) {
      this.batch.push(event);
      return;
    }
    const batch = [event];
    this.batch = batch;
    void this.enqueue(() => this.acceptBatch(batch));
    this.batchTicket = this.queued;
  }

  private async acceptBatch(batch: AgentEvent[]): Promise<void> {
    if (this.batch === batch) this.batch = undefined;
    if (batch.length > 1 && (await this.acceptFolded(batch))) return;
    for (const event of batch) {
      try {
        await this.accept(event);
      } catch (error) {
        // The store (or a copy of the event) failed: the task ends FAILED rather than half-applied.
        this.deps.onAgentError(`event processing failed: ${error instanceof Error ? error.message : 'unknown error'}`);
        await this.failRun(error);
      }
    }
  }

  /**
   * Ends the run after a failure of the server's own stages (the store refused a write): the task
   * ends FAILED; with no task yet, or when even that write fails, listeners hear the store's wire
   * error (such as `TaskStoreFullError`) or an internal error.
   */
  private async failRun(error: unknown): Promise<void> {
    this.invalid = true;
    // Nothing stored means nothing should keep running: the executor hears it through its signal.
    this.execution?.signal.abort(A2AError.isInstance(error) ? error : new InternalError({ message: 'The task could not be stored' }));
    const task = this.task;
    if (task && !isTerminalTaskState(task.status.state)) {
      try {
        await this.apply({
          statusUpdate: {
            taskId: this.key.taskId,
            contextId: task.contextId ?? this.contextId,
            status: failedStatus(this.key.taskId, task.contextId ?? this.contextId, 'The task could not be stored'),
          },
        });
        return;
      } catch {
        // fall through: nothing more can be stored
      }
    }
    if (!this.messageResponse)
      this.failListeners(A2AError.isInstance(error) ? error : new InternalError({ message: 'The task could not be stored' }));
  }

  private async accept(event: AgentEvent): Promise<void> {
    if (this.invalid) return;
    const response = toStreamResponse(event);
    if (!response) return this.breakProtocol('the agent published an event that is not a valid Task, Message or update');
    if (this.messageResponse) return this.breakProtocol('the agent published an event after its Message response');
    if (response.message) {
      if (this.task) return this.breakProtocol('the agent published a Message after a Task');
      this.messageResponse = response.message;
      this.emit({ type: 'event', id: '0', event: response, final: true });
      return;
    }
    const eventTaskId = response.task?.id ?? response.statusUpdate?.taskId ?? response.artifactUpdate?.taskId;
    if (eventTaskId !== this.key.taskId) return this.breakProtocol('the agent published an event for another task');
    if (this.task && isTerminalTaskState(this.task.status.state)) {
      // Nothing leaves a terminal state: drop the event, the task stays as it is. When the server ended the run
      // (cancel, a limit, another replica), an executor that has not yet seen its signal is no fault to report.
      if (!this.execution?.signal.aborted) this.deps.onAgentError('the agent published an event after the task reached a terminal state');
      return;
    }
    await this.apply(response);
  }

  /**
   * A burst of plain task events (the common case: an executor publishes submitted, working, its
   * artifacts and completed back to back) folded into one store write, then published one by one
   * with that write's revision (a snapshot at that revision holds them all, so subscribers skip
   * them as they skip any event their snapshot holds). Returns false, having written nothing,
   * when the burst holds anything else (a Message, an event `accept` refuses or drops) or the store
   * refuses the write (full, down, another replica's write): the burst then goes event by event, with
   * `accept`'s rules and failures. One write instead of one per event: the store copies, sizes and
   * indexes the task once per burst.
   */
  private async acceptFolded(batch: AgentEvent[]): Promise<boolean> {
    if (this.invalid || this.messageResponse) return false;
    let previous = this.task;
    const steps: Array<{ wire: StreamResponse; final: boolean; task: Task }> = [];
    let task = previous;
    try {
      for (const event of batch) {
        const response = toStreamResponse(event);
        if (!response || response.message) return false;
        const eventTaskId = response.task?.id ?? response.statusUpdate?.taskId ?? response.artifactUpdate?.taskId;
        if (eventTaskId !== this.key.taskId || (task && isTerminalTaskState(task.status.state))) return false;
        const next = this.fold(task, response);
        if (!next) return false;
        steps.push({ wire: task ? response : { task: next }, final: isFinalState(next), task: next });
        task = next;
      }
    } catch {
      return false;
    }
    const written = task as Task;
    const record = { tenant: this.key.tenant, owner: this.owner, task: written, updatedAt: Date.now() };
    const commit = this.committer(previous);
    let revision: number;
    let ids: string[] | undefined;
    try {
      if (commit) ({ revision, ids } = await commit(record, { expectedRevision: this.revision }, steps.map(toCommitEvent)));
      else revision = await this.deps.store.upsert(record, { expectedRevision: this.revision });
    } catch {
      return false;
    }
    this.task = written;
    this.revision = revision;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index] as { wire: StreamResponse; final: boolean; task: Task };
      try {
        if (ids) await this.deliver(step.wire, step.final, ids[index] as string, step.task);
        else await this.afterWrite(previous, step.wire, step.final, revision, step.task);
        previous ??= written;
      } catch (error) {
        // As in `acceptBatch`: the task ends FAILED and the rest of the burst is dropped.
        this.deps.onAgentError(`event processing failed: ${error instanceof Error ? error.message : 'unknown error'}`);
        await this.failRun(error);
        return true;
      }
    }
    return true;
  }

  /** `previous` with one event folded in (`undefined`: the event changes nothing). Pure. */
  private fold(previous: Task | undefined, response: StreamResponse): Task | undefined {
    let next = applyStreamResponse(previous, response);
    if (!next) return undefined;
    if (response.task && previous) {
      next = { ...next, history: response.task.history ?? previous.history };
    }
    if (next.contextId === undefined) next = { ...next, contextId: this.contextId };
    if (next.status.timestamp === undefined) next = { ...next, status: { ...next.status, timestamp: isoNow() } };
    if (!previous && this.pendingUserMessage) {
      const history = next.history ?? [];
      if (!history.some((m) => m.messageId === this.pendingUserMessage?.messageId)) {
        next = { ...next, history: [this.pendingUserMessage, ...history] };
      }
    }
    return next;
  }

  /** Folds an event into the task, stores it, appends it to the log and fans it out. */
  async apply(response: StreamResponse, attempt = 1): Promise<void> {
    const previous = this.task;
    const next = this.fold(previous, response);
    if (!next) return;
    // The first event that creates a task is sent as the whole Task, so a stream always starts with it.
    const wire = previous ? response : { task: next };
    const final = isFinalState(next);
    const record = { tenant: this.key.tenant, owner: this.owner, task: next, updatedAt: Date.now() };
    const commit = this.committer(previous);
    // Stored first (or with the event, in one step): a task the store refused (too large, store down) is not what readers see.
    let revision: number;
    let ids: string[] | undefined;
    try {
      if (commit) ({ revision, ids } = await commit(record, { expectedRevision: this.revision }, [{ event: wire, final }]));
      else revision = await this.deps.store.upsert(record, { expectedRevision: this.revision });
    } catch (error) {
      if (!TaskRevisionConflictError.isInstance(error) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
      return this.afterConflict(response, attempt);
    }
    this.task = next;
    this.revision = revision;
    if (ids) await this.deliver(wire, final, ids[0] as string);
    else await this.afterWrite(previous, wire, final, revision);
  }

  /**
   * The bus's atomic write-and-append, unless the write creates the task with an inline push
   * config: that config is stored between the write and the first event (`afterWrite`).
   */
  private committer(previous: Task | undefined): TaskCommit | undefined {
    return previous === undefined && this.pendingPushConfig !== undefined ? undefined : this.deps.commit;
  }

  /**
   * After the store took an event (`previous`: the task before it): the inline push config of a
   * new task is stored, then the event goes to the log, the listeners and the push configs.
   */
  private async afterWrite(
    previous: Task | undefined,
    wire: StreamResponse,
    final: boolean,
    revision: number,
    snapshot = this.task,
  ): Promise<void> {
    const { store, bus } = this.deps;
    if (!previous && this.pendingPushConfig) {
      await store.putPushConfig(this.key, this.pendingPushConfig);
      this.pendingPushConfig = undefined;
    }
    const id = await bus.publish(this.key, { event: wire, final, revision });
    await this.deliver(wire, final, id, snapshot);
  }

  /** An event in the bus's log (id `id`) goes to the listeners and the push configs. */
  private async deliver(wire: StreamResponse, final: boolean, id: string, snapshot = this.task): Promise<void> {
    this.lastEventId = id;
    this.emit({ type: 'event', id, event: wire, final });
    await notifyPushConfigs(this.deps, this.key, wire, snapshot);
  }

  /**
   * Ends the task FAILED with `error`'s ErrorInfo in its status message (creating the task when
   * the executor had not yet), unless it is terminal or the run answered with a Message. One path
   * for a governance limit ending a run and a lost replica's task ended by a survivor. Call it in
   * the write queue (`enqueue`).
   */
  async failWith(error: A2AError, contextId: string): Promise<void> {
    const task = this.task;
    if (this.messageResponse || (task && isTerminalTaskState(task.status.state))) return;
    const taskId = this.key.taskId;
    const taskContextId = task?.contextId ?? contextId;
    const status = failedStatus(taskId, taskContextId, error.message, error);
    await this.apply(
      task ? { statusUpdate: { taskId, contextId: taskContextId, status } } : { task: { id: taskId, contextId: taskContextId, status } },
    );
  }

  /**
   * Another replica wrote the task since this runtime read it. When that write ended the task (a
   * CancelTask that found no runner), the run stops here: the stored end is adopted and told to
   * the listeners, the executor's signal aborts and its later events are dropped. Otherwise the
   * event is folded onto the stored task and written again.
   */
  private async afterConflict(response: StreamResponse, attempt: number): Promise<void> {
    const stored = await this.deps.store.get(this.key);
    if (stored === undefined) throw new InternalError({ message: 'The task is no longer stored' });
    this.task = stored.task;
    this.revision = stored.revision;
    if (!isTerminalTaskState(stored.task.status.state)) return this.apply(response, attempt + 1);
    this.invalid = true;
    this.execution?.signal.abort(new TaskNotCancelableError({ message: 'The task ended on another replica' }));
    const log = await this.deps.bus.read(this.key);
    const event: StreamResponse = {
      statusUpdate: { taskId: this.key.taskId, contextId: stored.task.contextId ?? this.contextId, status: stored.task.status },
    };
    this.emit({ type: 'event', id: log?.lastId ?? this.lastEventId ?? '0', event, final: true });
  }

  /** The agent broke the protocol: the task fails (when there is one) and listeners hear why. */
  private async breakProtocol(reason: string): Promise<void> {
    this.deps.onAgentError(reason);
    this.invalid = true;
    if (this.task && !isTerminalTaskState(this.task.status.state)) {
      const contextId = this.task.contextId ?? this.contextId;
      await this.apply({
        statusUpdate: { taskId: this.key.taskId, contextId, status: failedStatus(this.key.taskId, contextId, 'Invalid agent response') },
      });
      return;
    }
    if (!this.task && !this.messageResponse) this.failListeners(new InvalidAgentResponseError());
  }
}
