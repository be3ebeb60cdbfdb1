import {
  A2AError,
  type A2AMethod,
  type A2ARequestMap,
  AgentCardSchema,
  InternalError,
  InvalidParamsError,
  isA2AMethod,
  MethodNotFoundError,
  parseOperationParams,
  parseWith,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  UnsupportedOperationError,
} from '@a2aplane/a2a-types';
import { createInMemoryTaskEventBus } from '../bus/in-memory-task-event-bus.js';
import { createInMemoryTaskStore } from '../store/in-memory-task-store.js';
import { createTaskCanceller } from './cancel.js';
import { type Caller, createCallerResolver, toA2AError } from './caller.js';
import { fastParseSendMessageRequest } from './event-validation.js';
import { findInputLimitViolation, resolveInputLimits } from './input-limits.js';
import { createOrphanedTaskHandler } from './orphaned-tasks.js';
import { createSendOperations } from './send.js';
import type { ServerContext } from './server-context.js';
import { trimHistory } from './server-context.js';
import type { A2AServer, A2AServerOptions, InProcessStreamOptions } from './server-types.js';
import { createStreaming } from './streaming.js';
import { createTaskOperations } from './task-operations.js';
import { createTaskRegistry } from './task-registry.js';
import { createTaskRun } from './task-run.js';
import type { CoreRequest, CoreResponse, Principal } from './types.js';

export { negotiateVersion, toA2AError } from './caller.js';
export type { A2AServer, A2AServerOptions, GovernanceOptions, GovernedTaskLike, InProcessStreamOptions } from './server-types.js';
export type { CoreRequest, CoreResponse } from './types.js';

/** Creates the framework-agnostic A2A server core; bind it with `createNodeHttpHandler` or `a2aExpress`. */
export function createA2AServer(options: A2AServerOptions): A2AServer {
  checkOptions(options);
  const card = options.card;
  const store = options.store ?? createInMemoryTaskStore();
  const ownBus = options.eventBus === undefined;
  const bus = options.eventBus ?? createInMemoryTaskEventBus({ subscriberBufferSize: options.subscriberBufferSize ?? 512 });
  const bufferSize = options.subscriberBufferSize ?? 512;
  const reportError = options.onError === false ? undefined : (options.onError ?? reportToStderr);
  // A throwing `onError` must not turn a reported failure into an unhandled one.
  const onError = (message: string, error?: unknown): void => {
    try {
      reportError?.(message, error);
    } catch {
      // nothing left to report to
    }
  };
  const inputLimits = resolveInputLimits(options.inputLimits);
  /** `InvalidParamsError` when params exceed the input limits (an iterative walk: it cannot overflow itself). */
  const checkInputShape = (params: unknown): void => {
    const violation = findInputLimitViolation(params, inputLimits);
    if (violation !== undefined) throw new InvalidParamsError({ message: `Request params exceed the input limits: ${violation}` });
  };
  // A shared bus that can write the store and its log in one step does (one round trip per write, decision 0039).
  const commit = ownBus ? undefined : bus.committerFor?.(store);
  const deps = { store, bus, commit, pushSender: options.pushSender, onAgentError: (message: string) => onError(message) };
  const ctx: ServerContext = { options, card, store, bus, sharedBus: !ownBus, bufferSize, deps, onError };
  const registry = createTaskRegistry(ctx);
  const { runtimes, sweepIdle, loadOwned } = registry;
  const { resolveCaller, inProcessCaller } = createCallerResolver(ctx);
  const operations = createTaskOperations(ctx, registry);
  const { listTasks, createPushConfig, getPushConfig, listPushConfigs, deletePushConfig, getExtendedCard } = operations;
  const { cancelRuntime, cancelTask } = createTaskCanceller(ctx, registry);
  const run = createTaskRun(ctx, registry, { cancelRuntime, vetWebhookUrl: operations.vetWebhookUrl });
  const streaming = createStreaming(ctx, registry);
  const { subscribe } = streaming;
  const { sendMessage, sendStreamingMessage } = createSendOperations(ctx, registry, run, streaming);
  // A shared bus that watches replicas' liveness ends the tasks of a dead one through this server.
  const stopOrphans = ownBus ? undefined : bus.onOrphanedTask?.(createOrphanedTaskHandler(ctx, registry));

  async function dispatch(method: A2AMethod, params: unknown, caller: Caller, request: CoreRequest): Promise<CoreResponse> {
    switch (method) {
      case 'SendMessage':
        return { kind: 'result', result: await sendMessage(params as SendMessageRequest, caller, request) };
      case 'SendStreamingMessage':
        if (!card.capabilities.streaming) throw new UnsupportedOperationError({ message: 'Streaming is not supported by this agent' });
        return { kind: 'stream', events: await sendStreamingMessage(params as SendMessageRequest, caller) };
      case 'GetTask': {
        const p = params as A2ARequestMap['GetTask'];
        const task = await loadOwned({ tenant: p.tenant ?? '', taskId: p.id }, caller);
        return { kind: 'result', result: trimHistory(task, p.historyLength) };
      }
      case 'ListTasks':
        return { kind: 'result', result: await listTasks(params as A2ARequestMap['ListTasks'], caller) };
      case 'CancelTask':
        return { kind: 'result', result: await cancelTask(params as A2ARequestMap['CancelTask'], caller) };
      case 'SubscribeToTask':
        try {
          return { kind: 'stream', events: await subscribe(params as A2ARequestMap['SubscribeToTask'], caller, request.lastEventId) };
        } catch (error) {
          sweepIdle();
          throw error;
        }
      case 'CreateTaskPushNotificationConfig':
        return { kind: 'result', result: await createPushConfig(params as A2ARequestMap['CreateTaskPushNotificationConfig'], caller) };
      case 'GetTaskPushNotificationConfig':
        return { kind: 'result', result: await getPushConfig(params as A2ARequestMap['GetTaskPushNotificationConfig'], caller) };
      case 'ListTaskPushNotificationConfigs':
        return { kind: 'result', result: await listPushConfigs(params as A2ARequestMap['ListTaskPushNotificationConfigs'], caller) };
      case 'DeleteTaskPushNotificationConfig':
        return { kind: 'result', result: await deletePushConfig(params as A2ARequestMap['DeleteTaskPushNotificationConfig'], caller) };
      case 'GetExtendedAgentCard':
        return { kind: 'result', result: await getExtendedCard(caller) };
    }
  }

  const instrumentation = options.instrumentation;

  async function handle(request: CoreRequest): Promise<CoreResponse> {
    try {
      if (!isA2AMethod(request.method)) {
        return { kind: 'error', error: new MethodNotFoundError({ metadata: { method: String(request.method).slice(0, 128) } }) };
      }
      const caller = await resolveCaller(request);
      checkInputShape(request.params);
      const method = request.method;
      if (method === 'SendMessage' || method === 'SendStreamingMessage') {
        // The hot path: a fast check that vouches for valid params, else zod decides below.
        const fast = fastParseSendMessageRequest(request.params ?? {});
        if (fast !== undefined) return await dispatch(method, fast, caller, request);
      }
      const parsed = parseOperationParams(method, request.params);
      if (!parsed.success) return { kind: 'error', error: new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] }) };
      return await dispatch(method, parsed.data, caller, request);
    } catch (error) {
      if (!A2AError.isInstance(error)) onError('request failed', error);
      return { kind: 'error', error: toA2AError(error) };
    }
  }

  async function cancel(params: A2ARequestMap['CancelTask'], cancelOptions: { principal?: Principal } = {}): Promise<Task> {
    const parsed = parseOperationParams('CancelTask', params);
    if (!parsed.success) throw new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] });
    return cancelTask(parsed.data, inProcessCaller(cancelOptions.principal));
  }

  async function* stream(request: SendMessageRequest, streamOptions: InProcessStreamOptions = {}): AsyncIterable<StreamResponse> {
    checkInputShape(request);
    const parsed = parseOperationParams('SendStreamingMessage', request);
    if (!parsed.success) throw new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] });
    const caller = inProcessCaller(streamOptions.principal);
    const events = await sendStreamingMessage(parsed.data, caller, {
      ...(streamOptions.context ? { context: streamOptions.context } : {}),
      ...(streamOptions.signal ? { signal: streamOptions.signal } : {}),
    });
    for await (const event of events) yield event.data;
  }

  return {
    card,
    store,
    eventBus: bus,
    // `handle` itself is the instrumentation's `serve`: no closure per request.
    handle: instrumentation === undefined ? handle : (request) => instrumentation.operation(request, handle),
    stream,
    cancel,
    stats() {
      let subscribers = 0;
      for (const runtime of runtimes.values()) subscribers += runtime.listenerCount;
      return { liveTasks: runtimes.size, subscribers };
    },
    async close() {
      stopOrphans?.();
      for (const runtime of runtimes.values()) {
        runtime.run?.signal.abort(new InternalError({ message: 'Server closed' }));
        runtime.endListeners();
      }
      runtimes.clear();
      if (ownBus) await bus.close();
      await options.pushSender?.close();
    },
  };
}

/** TypeError for options the server cannot run with: no executor, a governor without the recursion guard's input, an invalid card. */
function checkOptions(options: A2AServerOptions): void {
  if (typeof options?.executor?.execute !== 'function') {
    throw new TypeError(`expected executor with an execute function, got ${typeof options?.executor}`);
  }
  const governance = options.governance;
  if (governance !== undefined && (typeof governance?.admit !== 'function' || typeof governance.readTaskContext !== 'function')) {
    // A governor without readTaskContext would silently run without the recursion guard's input.
    throw new TypeError(
      `expected governance to be a Governor (admit and readTaskContext functions), got ${governance === null ? 'null' : `admit: ${typeof governance?.admit}, readTaskContext: ${typeof governance?.readTaskContext}`}`,
    );
  }
  const checked = parseWith(AgentCardSchema, options.card);
  if (!checked.success) throw new TypeError(`expected a valid AgentCard, got: ${checked.error.message}`);
}

/** The default `onError`: an executor that throws is never silent. One line (plus the stack) per failure. */
function reportToStderr(message: string, error?: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : error === undefined ? '' : String(error);
  console.error(`a2a server: ${message}${detail === '' ? '' : `: ${detail}`}`);
}
