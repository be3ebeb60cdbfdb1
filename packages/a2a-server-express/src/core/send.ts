import {
  InternalError,
  InvalidAgentResponseError,
  type SendMessageRequest,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2aplane/a2a-types';
import { type SendKey, taskMapKey } from '../store/task-store.js';
import { onCallerGone } from './caller-gone.js';
import type { Listener, RuntimeSignal, TaskRuntime } from './task-runtime.js';
import type { CoreRequest } from './types.js';
import type { StreamEvent } from './types.js';
import { type Caller, toA2AError } from './caller.js';
import { isFinal, type ServerContext, trimHistory } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import { type ExecutionExtra, NO_EXTRA } from './run.js';
import type { TaskRun } from './task-run.js';
import type { Streaming } from './streaming.js';
import { newId } from '../agent/new-id.js';
import { sendFingerprint } from './send-fingerprint.js';

const OK = { ok: true } as const;

/** SendMessage and SendStreamingMessage: idempotent claims (spec §3.3.1), starting the run, answering. */
export function createSendOperations(ctx: ServerContext, registry: TaskRegistry, run: TaskRun, streaming: Streaming) {
  const { store } = ctx;
  const { runtimes, releaseIfIdle, runtimeFor } = registry;
  const { startExecution } = run;
  const { streamFrom, streamRepeat } = streaming;
  /**
   * Starts still between their send-key claim and their launch, by task map key: a repeat waits for
   * them. Set in the same step as the claim, so no repeat can miss a start that is still on its way
   * (the store's admission check, governance) and take the message for a new task.
   */
  const pendingStarts = new Map<string, Promise<unknown>>();

  type SendClaim = { kind: 'claimed'; key: SendKey; taskId: string; settle: () => void } | { kind: 'repeat'; runtime: TaskRuntime };

  /** Marks a claimed send as starting until `settle` is called. */
  function markStarting(tenant: string, taskId: string): () => void {
    const mapKey = taskMapKey({ tenant, taskId });
    let settle!: () => void;
    const starting = new Promise<void>((resolve) => {
      settle = resolve;
    });
    pendingStarts.set(mapKey, starting);
    return () => {
      settle();
      if (pendingStarts.get(mapKey) === starting) pendingStarts.delete(mapKey);
    };
  }

  /**
   * Idempotent SendMessage (spec §3.3.1): claims (tenant, caller, messageId, fingerprint of the
   * message) in the store for the
   * task this message starts or continues. A repeat gets the runtime of the original task instead.
   * A claim whose task is gone (evicted, or the reply was a Message and no task was made) is
   * taken over, so that message runs again.
   */
  async function claimSend(params: SendMessageRequest, caller: Caller): Promise<SendClaim> {
    const tenant = params.tenant ?? '';
    const key: SendKey = { tenant, owner: caller.owner, messageId: params.message.messageId, fingerprint: sendFingerprint(params) };
    const taskId = params.message.taskId ?? newId();
    for (let attempt = 0; ; attempt++) {
      const held = await store.claimSendKey(key, taskId);
      if (held === undefined) return { kind: 'claimed', key, taskId, settle: markStarting(tenant, taskId) };
      const taskKey = { tenant, taskId: held };
      await pendingStarts.get(taskMapKey(taskKey))?.catch(() => undefined);
      const live = runtimes.get(taskMapKey(taskKey));
      if (live && live.owner === caller.owner) return { kind: 'repeat', runtime: live };
      const original = await runtimeFor(taskKey, caller).catch((error: unknown) => {
        if (TaskNotFoundError.isInstance(error)) return undefined;
        throw error;
      });
      if (original) return { kind: 'repeat', runtime: original };
      if (attempt > 0) throw new UnsupportedOperationError({ message: 'The message is already being handled' });
      await store.releaseSendKey(key, held);
    }
  }

  /** Runs `start` for a claimed send, giving the key back when the task never started. */
  async function startClaimed<T>(claim: { key: SendKey; taskId: string; settle: () => void }, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await store.releaseSendKey(claim.key, claim.taskId).catch(() => undefined);
      throw error;
    } finally {
      claim.settle();
    }
  }

  /** Waits (blocking sends) until the runtime's task is final, then answers like SendMessage. */
  async function answerSend(
    params: SendMessageRequest,
    request: CoreRequest,
    attach: (listener: Listener) => Promise<{ runtime: TaskRuntime; detach: () => void }>,
  ): Promise<unknown> {
    const blocking = params.configuration?.returnImmediately !== true;
    let resolveOutcome!: (value: { ok: true } | { ok: false; error: unknown }) => void;
    const outcome = new Promise<{ ok: true } | { ok: false; error: unknown }>((resolve) => {
      resolveOutcome = resolve;
    });
    const { runtime, detach } = await attach((signal) => {
      if (signal.type === 'error') resolveOutcome({ ok: false, error: signal.error });
      else if (signal.type === 'end' || signal.final || !blocking) resolveOutcome(OK);
    });
    // A caller that goes away stops the wait (not the task): the listener is released at once.
    const stopListening = onCallerGone(request, () =>
      resolveOutcome({ ok: false, error: new InternalError({ message: 'Request aborted' }) }),
    );
    const result = await outcome;
    stopListening();
    detach();
    releaseIfIdle(runtime);
    if (!result.ok) throw toA2AError(result.error);
    if (runtime.messageResponse) return { message: runtime.messageResponse };
    if (!runtime.task) throw new InvalidAgentResponseError({ message: 'The agent produced no response' });
    return { task: trimHistory(runtime.task, params.configuration?.historyLength) };
  }

  /** A repeat of a send: the original's answer, waiting for it while it still runs. */
  function answerRepeat(params: SendMessageRequest, request: CoreRequest, runtime: TaskRuntime): Promise<unknown> {
    return answerSend(params, request, async (listener) => {
      const settled = !runtime.running || runtime.messageResponse !== undefined || (runtime.task !== undefined && isFinal(runtime.task));
      if (settled || params.configuration?.returnImmediately === true) {
        listener({ type: 'end' });
        return { runtime, detach: () => undefined };
      }
      return { runtime, detach: runtime.addListener(listener) };
    });
  }

  async function sendMessage(params: SendMessageRequest, caller: Caller, request: CoreRequest): Promise<unknown> {
    const claim = await claimSend(params, caller);
    if (claim.kind === 'repeat') return answerRepeat(params, request, claim.runtime);
    return answerSend(params, request, (listener) =>
      startClaimed(claim, () => startExecution(params, caller, listener, { taskId: claim.taskId })),
    );
  }

  async function sendStreamingMessage(
    params: SendMessageRequest,
    caller: Caller,
    extra: ExecutionExtra = NO_EXTRA,
  ): Promise<AsyncIterable<StreamEvent>> {
    const claim = await claimSend(params, caller);
    if (claim.kind === 'repeat') return streamRepeat(claim.runtime);
    const buffered: RuntimeSignal[] = [];
    let forward: ((signal: RuntimeSignal) => void) | undefined;
    const { runtime, detach } = await startClaimed(claim, () =>
      startExecution(
        params,
        caller,
        (signal) => {
          if (forward) forward(signal);
          else buffered.push(signal);
        },
        { ...extra, taskId: claim.taskId },
      ),
    );
    return streamFrom(runtime, (push) => {
      forward = push;
      for (const signal of buffered.splice(0)) push(signal);
      return detach;
    });
  }

  return { sendMessage, sendStreamingMessage };
}
