// The streaming operations' loop (open, read, deduplicate, resume), a chunk loaded by the first
// stream: unary-only pages never download it (decision 0050). It imports nothing at run time: what
// it needs comes in one `StreamContext`, so that bundlers do not cut a chunk shared with the
// initial code (decision 0038).
import type { isA2AError, isInterruptedTaskState, isTerminalTaskState, StreamResponse, Task } from '@a2aplane/a2a-types';
import type { BoundTransport, CallOptions, SubscribeOptions } from './client.js';
import type { createDeadline } from './deadline.js';
import type { A2AAbortError, A2ATransportError, StreamResumeExhaustedError } from './errors.js';
import type { A2AValidator } from './guards.js';
import type { backoffDelay, ResolvedRetryOptions, sleep } from './retry.js';
import type { StreamItem, TransportCallOptions } from './transports/types.js';

type StreamMethod = 'SendStreamingMessage' | 'SubscribeToTask';

/** One client's settings and calls, and the client modules the stream loop uses. */
export interface StreamContext {
  withFallback<T>(signal: AbortSignal | undefined, run: (bound: BoundTransport) => Promise<T>): Promise<T>;
  prepareParams(
    method: StreamMethod,
    params: Record<string, unknown>,
    callOptions: CallOptions,
    bound: BoundTransport,
  ): Record<string, unknown>;
  transportOptions(callOptions: CallOptions, signal: AbortSignal | undefined, lastEventId?: string): TransportCallOptions;
  prepare(raw: unknown): Promise<void> | undefined;
  validator: A2AValidator;
  /** `InvalidAgentResponseError` for a refused result (its class loads on demand). */
  invalidResult(method: StreamMethod, message: string): Promise<Error>;
  send(method: 'GetTask', params: { id: string; tenant?: string }, callOptions: CallOptions): Promise<Task>;
  unaryTimeout: number | undefined;
  idleTimeout: number | undefined;
  retry: ResolvedRetryOptions;
  maxResume: number;
  createDeadline: typeof createDeadline;
  sleep: typeof sleep;
  backoffDelay: typeof backoffDelay;
  isTerminalTaskState: typeof isTerminalTaskState;
  isInterruptedTaskState: typeof isInterruptedTaskState;
  isA2AError: typeof isA2AError;
  A2AAbortError: typeof A2AAbortError;
  A2ATransportError: typeof A2ATransportError;
  StreamResumeExhaustedError: typeof StreamResumeExhaustedError;
}

/** An open stream and the deadline that watches it (idle timer, abort on early stop). */
interface OpenStream {
  items: AsyncIterable<StreamItem>;
  deadline: ReturnType<typeof createDeadline>;
}

function taskIdOf(event: StreamResponse): string | undefined {
  if (event.task) return event.task.id;
  if (event.statusUpdate) return event.statusUpdate.taskId;
  if (event.artifactUpdate) return event.artifactUpdate.taskId;
  return event.message?.taskId;
}

/** Whether the server closes the stream after this event (spec §3.1.2: terminal or interrupted state, or a message). */
function endsStream(context: StreamContext, event: StreamResponse): boolean {
  if (event.message) return true;
  const state = event.task?.status.state ?? event.statusUpdate?.status.state;
  return state !== undefined && (context.isTerminalTaskState(state) || context.isInterruptedTaskState(state));
}

function openStream(
  context: StreamContext,
  method: StreamMethod,
  params: Record<string, unknown>,
  callOptions: CallOptions,
  lastEventId: string | undefined,
): Promise<OpenStream> {
  return context.withFallback(callOptions.signal, async (bound) => {
    const prepared = context.prepareParams(method, params, callOptions, bound);
    if (callOptions.signal?.aborted) throw new context.A2AAbortError({ cause: callOptions.signal.reason });
    const timeoutMs = callOptions.timeoutMs === false ? undefined : (callOptions.timeoutMs ?? context.unaryTimeout);
    const deadline = context.createDeadline(callOptions.signal, timeoutMs);
    try {
      const { limits } = bound;
      const wait = limits.acquire(deadline.signal);
      if (wait) await wait;
      let items: AsyncIterable<StreamItem>;
      try {
        // Heartbeats and other signs of life restart the idle timer too.
        const streamOptions: TransportCallOptions = {
          ...context.transportOptions(callOptions, deadline.signal, lastEventId),
          onActivity: () => deadline.touch(),
        };
        items = await bound.transport.open(method, prepared, streamOptions);
      } finally {
        // A stream holds its slot only until it is open.
        limits.release();
      }
      // Open: from now on only silence (and the caller) can end it.
      deadline.idle(context.idleTimeout);
      return { items, deadline };
    } catch (error) {
      deadline.release();
      throw deadline.classify(error);
    }
  });
}

/**
 * A stream of `method` that resumes (`SubscribeToTask` with `Last-Event-ID`) when it drops before a
 * terminal or interrupted state, and drops events it has already delivered. Params and options are
 * checked by the caller.
 */
export async function* streamWithResume(
  context: StreamContext,
  method: StreamMethod,
  params: Record<string, unknown>,
  callOptions: SubscribeOptions,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { A2ATransportError } = context;
  let lastEventId = callOptions.lastEventId;
  let taskId = method === 'SubscribeToTask' ? (params.id as string) : undefined;
  const seen = new Set<string>();
  let failures = 0;
  let open: OpenStream = await openStream(context, method, params, callOptions, lastEventId);
  for (;;) {
    let dropped: unknown;
    const { deadline } = open;
    let ended = false;
    try {
      for await (const item of open.items) {
        deadline.touch();
        // Before the event counts as seen: a failed load drops the stream and the resumed one replays it.
        const pending = context.prepare(item.data);
        if (pending) await pending;
        if (item.id !== undefined) {
          // Safety net: a server that replays too much must not produce duplicates.
          if (seen.has(item.id)) continue;
          seen.add(item.id);
          lastEventId = item.id;
        }
        const checked = context.validator.result(method, item.data);
        if (!checked.ok) throw await context.invalidResult(method, checked.message);
        const event = checked.value;
        taskId ??= taskIdOf(event);
        failures = 0;
        yield event;
        if (endsStream(context, event)) {
          ended = true;
          return;
        }
      }
      ended = true;
    } catch (error) {
      ended = true;
      const named = deadline.classify(error);
      if (!(A2ATransportError.isInstance(named) && named.retryable)) throw named;
      dropped = named;
    } finally {
      // A consumer that stopped early: end the request too.
      if (!ended) deadline.abort();
      deadline.release();
    }
    // The stream ended or dropped before a terminal or interrupted state: resubscribe.
    if (taskId === undefined) {
      if (dropped) throw dropped;
      return;
    }
    for (;;) {
      if (failures >= context.maxResume) {
        throw new context.StreamResumeExhaustedError({
          taskId,
          attempts: failures,
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          cause: dropped,
        });
      }
      await context.sleep(context.backoffDelay(context.retry, failures), callOptions.signal);
      failures++;
      const resumeParams: { id: string; tenant?: string } = { id: taskId };
      if (typeof params.tenant === 'string') resumeParams.tenant = params.tenant;
      try {
        open = await openStream(context, 'SubscribeToTask', resumeParams, callOptions, lastEventId);
        break;
      } catch (error) {
        if (context.isA2AError(error)) {
          // The task may have finished while we were away (servers refuse to subscribe to a
          // terminal task): deliver its final state instead of failing.
          const final = await context.send('GetTask', resumeParams, callOptions).catch(() => undefined);
          if (final && endsStream(context, { task: final })) {
            yield { task: final };
            return;
          }
          throw error;
        }
        if (!A2ATransportError.isInstance(error)) throw error;
        dropped = error;
      }
    }
  }
}
