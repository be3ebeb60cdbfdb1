// The streaming operations' loop (open, read, deduplicate, resume): part of the streaming code,
// loaded with the first stream (load-streaming.ts, decision 0090).
import { isA2AError, isInterruptedTaskState, isTerminalTaskState, type StreamResponse, type Task } from '@a2aplane/a2a-types';
import type { BoundTransport, CallOptions, SubscribeOptions } from './client-types.js';
import { createDeadline } from './deadline.js';
import { invalidAgentResponse } from './error-responses.js';
import { A2AAbortError, A2ATransportError, StreamResumeExhaustedError } from './errors.js';
import type { A2AValidator } from './guards.js';
import { backoffDelay, type ResolvedRetryOptions, sleep } from './retry.js';
import type { StreamItem, TransportCallOptions } from './transports/types.js';

type StreamMethod = 'SendStreamingMessage' | 'SubscribeToTask';

/** What one client gives its streams: its settings and the calls its unary path uses too. */
export interface StreamHost {
  withFallback<T>(signal: AbortSignal | undefined, run: (bound: BoundTransport) => Promise<T>): Promise<T>;
  prepareParams(
    method: StreamMethod,
    params: Record<string, unknown>,
    callOptions: CallOptions,
    bound: BoundTransport,
  ): Record<string, unknown>;
  transportOptions(callOptions: CallOptions, signal: AbortSignal | undefined, lastEventId?: string): TransportCallOptions;
  validator: A2AValidator;
  send(method: 'GetTask', params: { id: string; tenant?: string }, callOptions: CallOptions): Promise<Task>;
  unaryTimeout: number | undefined;
  idleTimeout: number | undefined;
  retry: ResolvedRetryOptions;
  maxResume: number;
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
function endsStream(event: StreamResponse): boolean {
  if (event.message) return true;
  const state = event.task?.status.state ?? event.statusUpdate?.status.state;
  return state !== undefined && (isTerminalTaskState(state) || isInterruptedTaskState(state));
}

function openStream(
  host: StreamHost,
  method: StreamMethod,
  params: Record<string, unknown>,
  callOptions: CallOptions,
  lastEventId: string | undefined,
): Promise<OpenStream> {
  return host.withFallback(callOptions.signal, async (bound) => {
    const prepared = host.prepareParams(method, params, callOptions, bound);
    if (callOptions.signal?.aborted) throw new A2AAbortError({ cause: callOptions.signal.reason });
    const timeoutMs = callOptions.timeoutMs === false ? undefined : (callOptions.timeoutMs ?? host.unaryTimeout);
    const deadline = createDeadline(callOptions.signal, timeoutMs);
    try {
      const { limits } = bound;
      const wait = limits.acquire(deadline.signal);
      if (wait) await wait;
      let items: AsyncIterable<StreamItem>;
      try {
        // Heartbeats and other signs of life restart the idle timer too.
        const streamOptions: TransportCallOptions = {
          ...host.transportOptions(callOptions, deadline.signal, lastEventId),
          onActivity: () => deadline.touch(),
        };
        items = await bound.transport.open(method, prepared, streamOptions);
      } finally {
        // A stream holds its slot only until it is open.
        limits.release();
      }
      // Open: from now on only silence (and the caller) can end it.
      deadline.idle(host.idleTimeout);
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
  host: StreamHost,
  method: StreamMethod,
  params: Record<string, unknown>,
  callOptions: SubscribeOptions,
): AsyncGenerator<StreamResponse, void, undefined> {
  let lastEventId = callOptions.lastEventId;
  let taskId = method === 'SubscribeToTask' ? (params.id as string) : undefined;
  const seen = new Set<string>();
  let failures = 0;
  let open: OpenStream = await openStream(host, method, params, callOptions, lastEventId);
  for (;;) {
    let dropped: unknown;
    const { deadline } = open;
    let ended = false;
    try {
      for await (const item of open.items) {
        deadline.touch();
        if (item.id !== undefined) {
          // Safety net: a server that replays too much must not produce duplicates.
          if (seen.has(item.id)) continue;
          seen.add(item.id);
          lastEventId = item.id;
        }
        const checked = host.validator.result(method, item.data);
        if (!checked.ok) throw invalidAgentResponse(`Invalid ${method} result: ${checked.message}`);
        const event = checked.value;
        taskId ??= taskIdOf(event);
        failures = 0;
        yield event;
        if (endsStream(event)) {
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
      if (failures >= host.maxResume) {
        throw new StreamResumeExhaustedError({
          taskId,
          attempts: failures,
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          cause: dropped,
        });
      }
      await sleep(backoffDelay(host.retry, failures), callOptions.signal);
      failures++;
      const resumeParams: { id: string; tenant?: string } = { id: taskId };
      if (typeof params.tenant === 'string') resumeParams.tenant = params.tenant;
      try {
        open = await openStream(host, 'SubscribeToTask', resumeParams, callOptions, lastEventId);
        break;
      } catch (error) {
        if (isA2AError(error)) {
          // The task may have finished while we were away (servers refuse to subscribe to a
          // terminal task): deliver its final state instead of failing.
          const final = await host.send('GetTask', resumeParams, callOptions).catch(() => undefined);
          if (final && endsStream({ task: final })) {
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
