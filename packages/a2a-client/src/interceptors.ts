import type { A2AMethod } from '@a2aplane/a2a-types';

/** What a `beforeRequest` interceptor sees and may change: one HTTP request, per attempt. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The exact body string sent (`undefined` for none). */
  body: string | undefined;
}

/** What an `afterResponse` interceptor sees. */
export interface IncomingResponse {
  request: Readonly<OutgoingRequest>;
  status: number;
  headers: Headers;
}

/** What a `beforeCall` interceptor sees and may change: one operation, once per call (not per retry). */
export interface OutgoingCall {
  readonly method: A2AMethod;
  /** The params as given; assign a new object to send something else (it is validated afterwards). */
  params: Record<string, unknown>;
  /** Headers to add to the call (any case), sent with every attempt on every binding (gRPC: metadata). */
  readonly headers: Record<string, string>;
  /** Whether this is `SendStreamingMessage` / `SubscribeToTask`. */
  readonly streaming: boolean;
}

/** What an `afterCall` interceptor sees: the call and how it ended. */
export interface CallOutcome {
  readonly method: A2AMethod;
  readonly params: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly streaming: boolean;
  /** The validated result (unary calls); `undefined` for a stream. */
  readonly result?: unknown;
  /** The error the caller gets, if the call failed. */
  readonly error?: unknown;
  /** Whether the call (or the whole stream) succeeded. */
  readonly ok: boolean;
}

/**
 * Hooks around calls. Operation level (every binding): `beforeCall` / `afterCall`. HTTP level (the
 * built-in bindings, every attempt, after auth): `beforeRequest` / `afterResponse`; a request signer
 * belongs in `beforeRequest`, which sees method, URL, headers and the exact body.
 * A hook that throws fails the call with that error.
 */
export interface Interceptors {
  beforeCall?: (call: OutgoingCall) => void | Promise<void>;
  afterCall?: (outcome: CallOutcome) => void | Promise<void>;
  beforeRequest?: (request: OutgoingRequest) => void | Promise<void>;
  afterResponse?: (response: IncomingResponse) => void | Promise<void>;
}

/**
 * One `Interceptors` from several: `before*` hooks run in list order, `after*` hooks in reverse
 * (the first interceptor wraps all the others). `undefined` when no hook is set.
 */
export function composeInterceptors(input: Interceptors | readonly Interceptors[] | undefined): Interceptors | undefined {
  if (input === undefined) return undefined;
  const list: readonly Interceptors[] = Array.isArray(input) ? input : [input as Interceptors];
  const out: Interceptors = {};
  for (const key of HOOKS) {
    const hooks: Array<(arg: never) => unknown> = [];
    for (const [index, item] of list.entries()) {
      const hook = typeof item === 'object' && item !== null ? item[key] : item;
      if (hook === undefined) continue;
      if (typeof hook !== 'function')
        throw new TypeError(`expected interceptors[${index}].${key} to be a function, got ${hook === null ? 'null' : typeof hook}`);
      hooks.push(hook as (arg: never) => unknown);
    }
    // After hooks unwind: the first interceptor wraps all the others.
    if (key.startsWith('after')) hooks.reverse();
    if (hooks.length === 1) out[key] = hooks[0] as never;
    else if (hooks.length > 1)
      out[key] = (async (arg: never) => {
        for (const hook of hooks) await hook(arg);
      }) as never;
  }
  return out;
}

const HOOKS = ['beforeCall', 'afterCall', 'beforeRequest', 'afterResponse'] as const;
