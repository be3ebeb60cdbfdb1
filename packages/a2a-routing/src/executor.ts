import { type TaskContext, writeTaskContext } from '@a2aplane/a2a-governance';
import {
  InvalidAgentResponseError,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  applyStreamResponse,
} from '@a2aplane/a2a-types';
import type { PeerSnapshot } from './peer.js';

export interface ExecutionInput {
  /** The request to run; the executor writes `context` into `message.metadata.ruvector.context`. */
  request: SendMessageRequest;
  /** The sender's lineage, as carried on the wire (the receiver appends itself). */
  context: TaskContext;
  /** Aborting it cancels the task (CancelTask through the source), local or remote alike. */
  signal: AbortSignal;
  onUpdate?: (update: StreamResponse) => void;
}

export interface ExecutionOutcome {
  /** `{ task }` folded from the stream, or `{ message }` when the agent answered with a message only. */
  final: SendMessageResponse;
  /** Every stream event, in order. */
  updates: StreamResponse[];
  usage?: { tokens?: number; usd?: number };
}

/** One interface for in-process and remote execution (ADR-159 r2 `Executor = Local | Remote`). */
export interface Executor {
  readonly kind: 'local' | 'remote';
  execute(input: ExecutionInput): Promise<ExecutionOutcome>;
}

/**
 * Anything that can run SendStreamingMessage: the server core in process, or an A2A client. With
 * `cancel` (CancelTask), an aborted execution cancels its task before it rejects.
 */
export interface MessageStreamSource {
  stream(request: SendMessageRequest, options: { context: TaskContext; signal: AbortSignal }): AsyncIterable<StreamResponse>;
  cancel?(params: { id: string; tenant?: string }): Promise<unknown>;
}

/** Builds the executor for one selected peer; a2a-client provides one. */
export type RemoteExecutorFactory = (peer: PeerSnapshot) => Executor;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export interface StreamingExecutorOptions {
  /** Reads usage from the finished stream (for example, from task metadata your agents write). */
  measureUsage?: (final: SendMessageResponse, updates: readonly StreamResponse[]) => ExecutionOutcome['usage'];
  /**
   * How long an aborted execution waits for the task id (when no event named it yet) and for the
   * source's CancelTask before it rejects anyway. Default 5000 ms.
   */
  cancelTimeoutMs?: number;
}

const DEFAULT_CANCEL_TIMEOUT_MS = 5000;
const TIMED_OUT = Symbol('timed out');

/** Resolves `TIMED_OUT` after `ms`; `clear` stops the timer. */
function deadline(ms: number): { promise: Promise<typeof TIMED_OUT>; clear: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

const taskIdOf = (event: StreamResponse): string | undefined =>
  event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId;

/**
 * The logic local and remote execution share, so both give the same outcome for the same stream:
 * write the lineage into the request, iterate the source, forward each event to `onUpdate`, fold
 * events into the final Task with `applyStreamResponse`. A stream with neither a task nor a
 * message is an `InvalidAgentResponseError`.
 *
 * Abort: the executor stops forwarding at once (even if the source ignores its signal) and, when
 * the source has `cancel`, cancels the task there (waiting, bounded by `cancelTimeoutMs`, for the
 * first event to name it if none has), then stops the source's stream and rejects with the signal's
 * reason. Local and remote sources both end the task CANCELED.
 */
export function createStreamingExecutor(
  kind: 'local' | 'remote',
  source: MessageStreamSource,
  options: StreamingExecutorOptions = {},
): Executor {
  if (kind !== 'local' && kind !== 'remote') throw new TypeError(`expected kind 'local' or 'remote', got ${String(kind)}`);
  if (typeof source?.stream !== 'function') throw new TypeError(`expected a MessageStreamSource, got ${typeof source}`);
  const cancelTimeoutMs = options.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT_MS;
  if (!(cancelTimeoutMs >= 0)) throw new RangeError(`expected cancelTimeoutMs >= 0, got ${String(options.cancelTimeoutMs)}`);
  return {
    kind,
    async execute(input) {
      const { context, signal, onUpdate } = input;
      if (signal.aborted) throw abortReason(signal);
      const message = input.request.message;
      const request: SendMessageRequest = {
        ...input.request,
        message: { ...message, metadata: writeTaskContext(message.metadata, context) },
      };
      const updates: StreamResponse[] = [];
      let task: Task | undefined;
      let reply: Message | undefined;
      // The source's own signal: it outlives the caller's just long enough to cancel the task.
      const streamController = new AbortController();
      const iterator = source.stream(request, { context, signal: streamController.signal })[Symbol.asyncIterator]();
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<typeof ABORTED>((resolve) => {
        onAbort = () => resolve(ABORTED);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      let pending: Promise<IteratorResult<StreamResponse>> | undefined;
      let finished = false;
      try {
        for (;;) {
          pending ??= iterator.next();
          const step = await Promise.race([pending, aborted]);
          if (step === ABORTED) break;
          pending = undefined;
          if (step.done) {
            finished = true;
            break;
          }
          const event = step.value;
          updates.push(event);
          if (event.message !== undefined && task === undefined) reply = event.message;
          task = applyStreamResponse(task, event);
          onUpdate?.(event);
        }
        if (signal.aborted && source.cancel)
          await cancelAt(source.cancel.bind(source), task?.id, pending, iterator, request.tenant, cancelTimeoutMs);
      } finally {
        if (onAbort) signal.removeEventListener('abort', onAbort);
        if (!finished) {
          // The source's signal follows the caller's abort (after the cancel); a failure of our own
          // (a throwing onUpdate) only stops listening, local and remote alike.
          if (signal.aborted) streamController.abort(abortReason(signal));
          // Not awaited: a generator suspended in an await only returns once that await settles.
          void Promise.resolve(iterator.return?.()).catch(() => {});
        }
      }
      if (signal.aborted) throw abortReason(signal);
      let final: SendMessageResponse;
      if (task !== undefined) final = { task };
      else if (reply !== undefined) final = { message: reply };
      else throw new InvalidAgentResponseError({ message: 'the stream ended without a task or a message' });
      const usage = options.measureUsage?.(final, updates);
      return usage === undefined ? { final, updates } : { final, updates, usage };
    },
  };
}

const ABORTED = Symbol('aborted');

/**
 * Cancels the task of an aborted execution: the task id known so far, else the first one the
 * stream names (its pending read, then further ones), all within one `timeoutMs`. Failures and
 * timeouts are swallowed: the caller's abort stands either way.
 */
async function cancelAt(
  cancel: NonNullable<MessageStreamSource['cancel']>,
  knownId: string | undefined,
  pending: Promise<IteratorResult<StreamResponse>> | undefined,
  iterator: AsyncIterator<StreamResponse>,
  tenant: string | undefined,
  timeoutMs: number,
): Promise<void> {
  const limit = deadline(timeoutMs);
  try {
    let id = knownId;
    let next = pending;
    while (id === undefined) {
      next ??= iterator.next();
      const step = await Promise.race([next, limit.promise]).catch((): typeof TIMED_OUT => TIMED_OUT);
      next = undefined;
      if (step === TIMED_OUT || step.done) return;
      if (step.value.message !== undefined) return; // a message-only answer: no task to cancel
      id = taskIdOf(step.value);
    }
    await Promise.race([cancel(tenant === undefined ? { id } : { id, tenant }), limit.promise]).catch(() => undefined);
  } finally {
    limit.clear();
  }
}

/** Runs an in-process agent (the server package exposes its core as a `MessageStreamSource`). */
export function createLocalExecutor(source: MessageStreamSource, options?: StreamingExecutorOptions): Executor {
  return createStreamingExecutor('local', source, options);
}
