import type { TaskContext } from '@a2aplane/a2a-governance';
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
  /** The request to run; the dispatcher has already written the lineage into `message.metadata.ruvector.context`. */
  request: SendMessageRequest;
  /** The sender's lineage, as carried on the wire (the receiver appends itself). */
  context: TaskContext;
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

/** Anything that can run SendStreamingMessage: the server core in process, or an A2A client. */
export interface MessageStreamSource {
  stream(request: SendMessageRequest, options: { context: TaskContext; signal: AbortSignal }): AsyncIterable<StreamResponse>;
}

/** Builds the executor for one selected peer; a2a-client provides one. */
export type RemoteExecutorFactory = (peer: PeerSnapshot) => Executor;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The logic local and remote execution share, so both give the same outcome for the same stream:
 * iterate the source, forward each event to `onUpdate`, fold events into the final Task with
 * `applyStreamResponse`, and stop with the signal's reason as soon as it aborts (even if the
 * source ignores the signal). A stream with neither a task nor a message is an
 * `InvalidAgentResponseError`.
 */
export interface StreamingExecutorOptions {
  /** Reads usage from the finished stream (for example, from task metadata your agents write). */
  measureUsage?: (final: SendMessageResponse, updates: readonly StreamResponse[]) => ExecutionOutcome['usage'];
}

export function createStreamingExecutor(kind: 'local' | 'remote', source: MessageStreamSource, options: StreamingExecutorOptions = {}): Executor {
  if (kind !== 'local' && kind !== 'remote') throw new TypeError(`expected kind 'local' or 'remote', got ${String(kind)}`);
  if (typeof source?.stream !== 'function') throw new TypeError(`expected a MessageStreamSource, got ${typeof source}`);
  return {
    kind,
    async execute(input) {
      const { request, context, signal, onUpdate } = input;
      if (signal.aborted) throw abortReason(signal);
      const updates: StreamResponse[] = [];
      let task: Task | undefined;
      let message: Message | undefined;
      const iterator = source.stream(request, { context, signal })[Symbol.asyncIterator]();
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      });
      // Keeps an unobserved rejection from surfacing when the stream wins every race.
      aborted.catch(() => {});
      let finished = false;
      try {
        for (;;) {
          const step = await Promise.race([iterator.next(), aborted]);
          if (step.done) {
            finished = true;
            break;
          }
          const event = step.value;
          updates.push(event);
          if (event.message !== undefined && task === undefined) message = event.message;
          task = applyStreamResponse(task, event);
          onUpdate?.(event);
        }
      } finally {
        if (onAbort) signal.removeEventListener('abort', onAbort);
        if (!finished) {
          // Not awaited: a generator suspended in an await only returns once that await settles.
          void Promise.resolve(iterator.return?.()).catch(() => {});
        }
      }
      if (signal.aborted) throw abortReason(signal);
      let final: SendMessageResponse;
      if (task !== undefined) final = { task };
      else if (message !== undefined) final = { message };
      else throw new InvalidAgentResponseError({ message: 'the stream ended without a task or a message' });
      const usage = options.measureUsage?.(final, updates);
      return usage === undefined ? { final, updates } : { final, updates, usage };
    },
  };
}

/** Runs an in-process agent (the server package exposes its core as a `MessageStreamSource`). */
export function createLocalExecutor(source: MessageStreamSource, options?: StreamingExecutorOptions): Executor {
  return createStreamingExecutor('local', source, options);
}
