import {
  A2AError,
  InternalError,
  InvalidAgentResponseError,
  isTerminalTaskState,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  TaskNotCancelableError,
  type TaskStatus,
} from '@a2aplane/a2a-types';
import type { AgentEvent } from '../agent/executor.js';
import { isoNow } from '../agent/iso-now.js';
import { newId } from '../agent/new-id.js';
import { type StoredTask, type TaskKey, taskMapKey } from '../store/task-store.js';
import { type ClassifiedEvent, classifyAgentEvent } from './agent-event.js';
import type { Run } from './run.js';
import { type RuntimeDeps, type RuntimeSignal, TaskWriter, type WriterHost } from './task-writer.js';
import { toA2AError } from './to-a2a-error.js';
import { WriteQueue } from './write-queue.js';

export type { RuntimeDeps, RuntimeSignal } from './task-writer.js';
export type Listener = (signal: RuntimeSignal) => void;

/**
 * The live side of one task: its write queue, the task as stored (`TaskWriter`), its listeners, and
 * its run. The run state (the current `Run`, whether the executor broke the protocol, its Message
 * answer) is written here only: `beginRun` and `endRun` bracket a run, and the executor's events
 * pass this runtime's rules before they reach the writer.
 */
export class TaskRuntime implements WriterHost {
  /** `taskMapKey(key)`, made once. */
  readonly mapKey: string;
  private readonly listeners = new Set<Listener>();
  private readonly queue: WriteQueue<AgentEvent>;
  private readonly writer: TaskWriter;
  private readonly events: RunEvents;
  /** The run in progress; `undefined` between runs. */
  private current: Run | undefined;

  constructor(
    readonly key: TaskKey,
    readonly owner: string,
    readonly contextId: string,
    deps: RuntimeDeps,
    task?: Task,
    revision = 0,
  ) {
    this.mapKey = taskMapKey(key);
    this.writer = new TaskWriter(key, owner, contextId, deps, this, task, revision);
    this.events = new RunEvents(this, this.writer, deps);
    this.queue = new WriteQueue((events) => this.events.acceptBurst(events));
  }

  get task(): Task | undefined {
    return this.writer.task;
  }
  /** Id of the newest event this runtime published (`undefined`: none since it was made). */
  get lastEventId(): string | undefined {
    return this.writer.lastEventId;
  }
  /** The run in progress, for cancel and close; `undefined` between runs. */
  get run(): Run | undefined {
    return this.current;
  }
  get running(): boolean {
    return this.current !== undefined;
  }
  /** The message the executor answered with instead of creating a task. */
  get messageResponse(): Message | undefined {
    return this.events.answer;
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
  get idle(): boolean {
    return this.current === undefined && this.listeners.size === 0;
  }

  /** Runs `fn` after every write queued before it. */
  enqueue<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.queue.enqueue(fn);
  }

  addListener(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** To every listener (a copy of the set when there are several: a listener may detach another). */
  emit(signal: RuntimeSignal): void {
    const size = this.listeners.size;
    if (size === 1) for (const listener of this.listeners) listener(signal);
    else if (size > 1) for (const listener of [...this.listeners]) listener(signal);
  }

  endListeners(): void {
    this.emit({ type: 'end' });
  }

  failListeners(error: unknown): void {
    this.emit({ type: 'error', error });
  }

  /**
   * Starts `run` with `listener` attached (so it misses no event); returns the listener's detach. A
   * continuation's user message joins the history first (then a promise, so a new task's executor
   * starts in the same tick); when the store refuses that write nothing runs and the run is undone.
   */
  beginRun(run: Run, listener: Listener): (() => void) | Promise<() => void> {
    this.current = run;
    this.events.reset();
    this.writer.firstMessage ??= run.firstMessage;
    if (run.pushConfig) this.writer.pushConfig = run.pushConfig;
    const detach = this.addListener(listener);
    if (run.context.task === undefined) return detach;
    return this.enqueue(() => this.writer.appendToHistory(run.context.message)).then(
      () => detach,
      (error: unknown) => {
        this.current = undefined;
        detach();
        throw error;
      },
    );
  }

  /**
   * Ends the run after its executor returned (`failure`: what it threw): the task ends FAILED when
   * the executor threw before a terminal state; with no answer at all listeners hear why. Returns
   * the error of that final write when the store refused it (the run ends all the same).
   */
  endRun(failure: unknown): Promise<unknown> {
    const contextId = this.current?.context.contextId ?? this.contextId;
    return this.enqueue(async () => {
      await this.events.endOfRun(failure, contextId);
      this.current = undefined;
      this.endListeners();
    }).then(
      () => undefined,
      (error: unknown) => {
        this.failListeners(toA2AError(error));
        this.current = undefined;
        this.endListeners();
        return error;
      },
    );
  }

  /** Another replica ended the task: this run stops here. */
  endedElsewhere(): void {
    this.events.invalid = true;
    this.current?.signal.abort(new TaskNotCancelableError({ message: 'The task ended on another replica' }));
  }

  /** Takes the task as stored (a cancel that another replica's runner ended). */
  adopt(stored: StoredTask): void {
    this.writer.adopt(stored);
  }

  /** Folds a server-made event (CANCELED, FAILED) into the task, stores and publishes it. Call it in the write queue. */
  apply(response: StreamResponse): Promise<void> {
    return this.writer.apply(response);
  }

  /**
   * Ends the task FAILED with `error`'s ErrorInfo in its status message (creating the task when
   * the executor had not yet), unless it is terminal or the run answered with a Message. One path
   * for a governance limit ending a run and a lost replica's task ended by a survivor. Call it in
   * the write queue (`enqueue`).
   */
  failWith(error: A2AError, contextId: string): Promise<void> {
    return this.events.failWith(error, contextId);
  }

  /** Queues an event from the executor (a burst published back to back shares one queue step). */
  publishFromAgent(event: AgentEvent): void {
    this.queue.push(event);
  }
}

/**
 * The executor's events of the current run against the protocol (one Message answer or events of
 * its own task, nothing after a terminal state), then to the writer: the rest of the run state,
 * kept beside the runtime that owns it.
 */
class RunEvents {
  /** Set once the executor broke the protocol (or the task ended elsewhere); later events are dropped. */
  invalid = false;
  /** The message the executor answered with instead of creating a task. */
  answer: Message | undefined;

  constructor(
    private readonly runtime: TaskRuntime,
    private readonly writer: TaskWriter,
    private readonly deps: RuntimeDeps,
  ) {}

  /** A new run starts with neither. */
  reset(): void {
    this.invalid = false;
    this.answer = undefined;
  }

  /** The end of a run (in the write queue): FAILED when the executor threw before a terminal state; no answer at all is told. */
  async endOfRun(failure: unknown, contextId: string): Promise<void> {
    const task = this.writer.task;
    if (failure !== undefined && task && !isTerminalTaskState(task.status.state)) await this.failWith(executorFailure(failure), contextId);
    else if (!task && !this.answer && !this.invalid)
      this.runtime.failListeners(
        failure === undefined ? new InvalidAgentResponseError({ message: 'The agent produced no response' }) : toA2AError(failure),
      );
  }

  /** `TaskRuntime.failWith`. */
  async failWith(error: A2AError, contextId: string): Promise<void> {
    const task = this.writer.task;
    if (this.answer || (task && isTerminalTaskState(task.status.state))) return;
    const taskId = this.runtime.key.taskId;
    const taskContextId = task?.contextId ?? contextId;
    const status = failedStatus(taskId, taskContextId, error.message, error);
    await this.writer.apply(
      task ? { statusUpdate: { taskId, contextId: taskContextId, status } } : { task: { id: taskId, contextId: taskContextId, status } },
    );
  }

  async acceptBurst(events: AgentEvent[]): Promise<void> {
    const taskId = this.runtime.key.taskId;
    if (events.length === 1) return this.acceptOne(classifyAgentEvent(events[0] as AgentEvent, taskId));
    const classified: ClassifiedEvent[] = [];
    for (const event of events) classified.push(classifyAgentEvent(event, taskId));
    if (await this.acceptFolded(classified)) return;
    for (const event of classified) await this.acceptOne(event);
  }

  /** One event by the rules; a write of it the store refused ends the run (`failOnError`). */
  private async acceptOne(event: ClassifiedEvent): Promise<void> {
    try {
      await this.accept(event);
    } catch (error) {
      await this.failOnError(error);
    }
  }

  /**
   * A burst of plain task events in one store write (`TaskWriter.applyBurst`); false, having written
   * nothing, when the burst holds anything `accept` would refuse or drop or the store refuses the write.
   */
  private async acceptFolded(events: ClassifiedEvent[]): Promise<boolean> {
    if (this.invalid || this.answer) return false;
    for (const event of events) if (typeof event === 'string' || event.message) return false;
    try {
      return await this.writer.applyBurst(events as StreamResponse[]);
    } catch (error) {
      // As event by event: the task ends FAILED and the rest of the burst is dropped.
      await this.failOnError(error);
      return true;
    }
  }

  private async accept(event: ClassifiedEvent): Promise<void> {
    if (this.invalid) return;
    if (event === 'invalid') return this.breakProtocol('the agent published an event that is not a valid Task, Message or update');
    if (this.answer) return this.breakProtocol('the agent published an event after its Message response');
    if (event !== 'foreign' && event.message) {
      if (this.writer.task) return this.breakProtocol('the agent published a Message after a Task');
      this.answer = event.message;
      this.runtime.emit({ type: 'event', id: '0', event, final: true });
      return;
    }
    if (event === 'foreign') return this.breakProtocol('the agent published an event for another task');
    if (this.writer.task && isTerminalTaskState(this.writer.task.status.state)) {
      // Nothing leaves a terminal state: drop the event, the task stays as it is. When the server ended the run
      // (cancel, a limit, another replica), an executor that has not yet seen its signal is no fault to report.
      if (!this.runtime.run?.signal.aborted) this.deps.onAgentError('the agent published an event after the task reached a terminal state');
      return;
    }
    await this.writer.apply(event);
  }

  /**
   * A write of the server's own stages failed (the store refused it): the run stops and the task
   * ends FAILED; with no task yet, or when even that write fails, listeners hear the store's wire
   * error (such as `TaskStoreFullError`) or an internal error.
   */
  private async failOnError(error: unknown): Promise<void> {
    this.deps.onAgentError(`event processing failed: ${error instanceof Error ? error.message : 'unknown error'}`);
    this.invalid = true;
    const reason = A2AError.isInstance(error) ? error : new InternalError({ message: 'The task could not be stored' });
    // Nothing stored means nothing should keep running: the executor hears it through its signal.
    this.runtime.run?.signal.abort(reason);
    const task = this.writer.task;
    if (task && !isTerminalTaskState(task.status.state)) {
      const contextId = task.contextId ?? this.runtime.contextId;
      try {
        await this.writer.apply({
          statusUpdate: {
            taskId: this.runtime.key.taskId,
            contextId,
            status: failedStatus(this.runtime.key.taskId, contextId, 'The task could not be stored'),
          },
        });
        return;
      } catch {
        // fall through: nothing more can be stored
      }
    }
    if (!this.answer) this.runtime.failListeners(reason);
  }

  /** The agent broke the protocol: the task fails (when there is one) and listeners hear why. */
  private async breakProtocol(reason: string): Promise<void> {
    this.deps.onAgentError(reason);
    this.invalid = true;
    const task = this.writer.task;
    if (task && !isTerminalTaskState(task.status.state)) {
      const contextId = task.contextId ?? this.runtime.contextId;
      await this.writer.apply({
        statusUpdate: {
          taskId: this.runtime.key.taskId,
          contextId,
          status: failedStatus(this.runtime.key.taskId, contextId, 'Invalid agent response'),
        },
      });
      return;
    }
    if (!task && !this.answer) this.runtime.failListeners(new InvalidAgentResponseError());
  }
}

/**
 * The FAILED status the server writes when a task breaks (the agent's protocol, a store refusal)
 * or is ended from outside (a governance limit, a lost replica): with `error`, its ErrorInfo rides
 * in a data part after the text, so a client can tell why without parsing the text.
 */
function failedStatus(taskId: string, contextId: string, text: string, error?: A2AError): TaskStatus {
  const parts: Part[] = [{ text }];
  if (error) parts.push({ data: error.toErrorInfo() as unknown as Record<string, unknown> });
  return { state: 'TASK_STATE_FAILED', timestamp: isoNow(), message: { messageId: newId(), role: 'ROLE_AGENT', taskId, contextId, parts } };
}

/**
 * What the caller is told when the executor throws: an A2A error (a delegated refusal, say) as it is, since those are
 * made to cross the wire; anything else as a generic InternalError, since a thrown message may hold what the caller
 * must not see. The operator hears the real error through `onError`.
 */
function executorFailure(failure: unknown): A2AError {
  if (A2AError.isInstance(failure)) return failure;
  return new InternalError({ message: "The agent failed while working on this task; the agent's log has the details" });
}
