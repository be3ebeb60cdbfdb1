// `beforeCall` / `afterCall` around the client's operations (every binding, once per call).
import type { A2AMethod } from '@a2aplane/a2a-types';
import { checkObject } from './checks.js';
import type { CallOutcome, Interceptors, OutgoingCall } from './interceptors.js';

/** Runs the `beforeCall` hooks; returns the call (params and headers as the hooks left them) and the options to use. */
async function intercept<Options extends { headers?: Record<string, string> }>(
  hooks: Interceptors,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  streaming: boolean,
): Promise<{ call: OutgoingCall; callOptions: Options }> {
  checkObject('params', params);
  const call: OutgoingCall = { method, params: params as Record<string, unknown>, headers: { ...callOptions.headers }, streaming };
  await hooks.beforeCall?.(call);
  return { call, callOptions: { ...callOptions, headers: call.headers } };
}

const outcome = (call: OutgoingCall, ok: boolean, value: unknown): CallOutcome =>
  ok ? { ...call, ok, result: value } : { ...call, ok, error: value };

/** A unary call inside its hooks: `afterCall` sees the result or the error, which the caller then gets. */
export async function invokeHooked<Options extends { headers?: Record<string, string> }, R>(
  hooks: Interceptors,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  send: (params: Record<string, unknown>, callOptions: Options) => Promise<R>,
): Promise<R> {
  const intercepted = await intercept(hooks, method, params, callOptions, false);
  let result: R;
  try {
    result = await send(intercepted.call.params, intercepted.callOptions);
  } catch (error) {
    await hooks.afterCall?.(outcome(intercepted.call, false, error));
    throw error;
  }
  await hooks.afterCall?.(outcome(intercepted.call, true, result));
  return result;
}

/** A stream inside its hooks: `afterCall` runs once, when the stream ends, fails or is left early. */
export async function* streamHooked<Options extends { headers?: Record<string, string> }, T>(
  hooks: Interceptors,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  stream: (params: Record<string, unknown>, callOptions: Options) => AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  const intercepted = await intercept(hooks, method, params, callOptions, true);
  let failed = false;
  try {
    yield* stream(intercepted.call.params, intercepted.callOptions);
  } catch (error) {
    failed = true;
    await hooks.afterCall?.(outcome(intercepted.call, false, error));
    throw error;
  } finally {
    // Also when the consumer stops early: the stream ended without an error.
    if (!failed) await hooks.afterCall?.(outcome(intercepted.call, true, undefined));
  }
}
