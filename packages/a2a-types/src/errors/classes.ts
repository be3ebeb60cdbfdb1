import { A2AError, type A2AErrorOptions } from './a2a-error.js';
import { ERROR_CODE_TABLE, type ErrorReason } from './codes.js';

/**
 * The class of one reason: `new X(options)`, `X.reason`, `X.isInstance(e)`, `instanceof X`, and
 * `class Y extends X` all work as for a class declaration.
 */
export interface A2AErrorClass<R extends ErrorReason> {
  new (options?: A2AErrorOptions): A2AError & { readonly reason: R };
  readonly prototype: A2AError;
  /** The reason this class stands for. */
  readonly reason: R;
  /** True when `value` is an A2AError of this class (by reason), from any copy of this package. */
  isInstance<T extends abstract new (...args: never[]) => A2AError>(this: T, value: unknown): value is InstanceType<T>;
}

/** `TASK_NOT_FOUND` -> `TaskNotFoundError` (and `JSON_PARSE` -> `JSONParseError`). */
const classNameOf = (reason: string): string =>
  `${reason.toLowerCase().replace(/(?:^|_)(.)/g, (_, c: string) => c.toUpperCase())}Error`.replace('Json', 'JSON');

/**
 * The classes are made from the table by one factory (decision 0034): a class per reason, named
 * after it, whose constructor passes its reason to `A2AError`. Data instead of ~20 declarations
 * keeps browser bundles small.
 */
function buildClasses(): { readonly [R in ErrorReason]: A2AErrorClass<R> } {
  const classes: Record<string, unknown> = {};
  for (const reason in ERROR_CODE_TABLE) {
    const name = classNameOf(reason);
    const Class = class extends A2AError {
      static override readonly reason = reason;
      constructor(options?: A2AErrorOptions) {
        super(reason as ErrorReason, options);
        this.name = name;
      }
    };
    Object.defineProperty(Class, 'name', { value: name });
    classes[reason] = Class;
  }
  return classes as { readonly [R in ErrorReason]: A2AErrorClass<R> };
}

/** Every error class by its `ErrorInfo` reason. */
export const ERROR_CLASSES = /*#__PURE__*/ buildClasses();

// A call, not a property read, so that bundlers may drop the names an application does not use.
const classOf = <R extends ErrorReason>(reason: R): A2AErrorClass<R> => ERROR_CLASSES[reason];

/** The request body is not valid JSON. */
export const JSONParseError = /*#__PURE__*/ classOf('JSON_PARSE');
export type JSONParseError = InstanceType<typeof JSONParseError>;

/** The body is JSON but not a valid JSON-RPC 2.0 request. */
export const InvalidRequestError = /*#__PURE__*/ classOf('INVALID_REQUEST');
export type InvalidRequestError = InstanceType<typeof InvalidRequestError>;

/** The method does not exist or is not available. */
export const MethodNotFoundError = /*#__PURE__*/ classOf('METHOD_NOT_FOUND');
export type MethodNotFoundError = InstanceType<typeof MethodNotFoundError>;

/** The params failed validation; `fieldViolations` lists every problem. */
export const InvalidParamsError = /*#__PURE__*/ classOf('INVALID_PARAMS');
export type InvalidParamsError = InstanceType<typeof InvalidParamsError>;

/** An internal error; the message never reveals internals. */
export const InternalError = /*#__PURE__*/ classOf('INTERNAL');
export type InternalError = InstanceType<typeof InternalError>;

/** The task does not exist or is not accessible to the caller (spec §3.3.2). */
export const TaskNotFoundError = /*#__PURE__*/ classOf('TASK_NOT_FOUND');
export type TaskNotFoundError = InstanceType<typeof TaskNotFoundError>;

/** The task is in a state that cannot be canceled. */
export const TaskNotCancelableError = /*#__PURE__*/ classOf('TASK_NOT_CANCELABLE');
export type TaskNotCancelableError = InstanceType<typeof TaskNotCancelableError>;

/** The agent does not support push notifications. */
export const PushNotificationNotSupportedError = /*#__PURE__*/ classOf('PUSH_NOTIFICATION_NOT_SUPPORTED');
export type PushNotificationNotSupportedError = InstanceType<typeof PushNotificationNotSupportedError>;

/** The operation, or this use of it, is not supported. */
export const UnsupportedOperationError = /*#__PURE__*/ classOf('UNSUPPORTED_OPERATION');
export type UnsupportedOperationError = InstanceType<typeof UnsupportedOperationError>;

/** A media type in the request is not supported. */
export const ContentTypeNotSupportedError = /*#__PURE__*/ classOf('CONTENT_TYPE_NOT_SUPPORTED');
export type ContentTypeNotSupportedError = InstanceType<typeof ContentTypeNotSupportedError>;

/** The agent produced a response that breaks the protocol. */
export const InvalidAgentResponseError = /*#__PURE__*/ classOf('INVALID_AGENT_RESPONSE');
export type InvalidAgentResponseError = InstanceType<typeof InvalidAgentResponseError>;

/** The agent declares an extended card but has none configured. */
export const ExtendedAgentCardNotConfiguredError = /*#__PURE__*/ classOf('EXTENDED_AGENT_CARD_NOT_CONFIGURED');
export type ExtendedAgentCardNotConfiguredError = InstanceType<typeof ExtendedAgentCardNotConfiguredError>;

/** The agent requires an extension the client did not declare. */
export const ExtensionSupportRequiredError = /*#__PURE__*/ classOf('EXTENSION_SUPPORT_REQUIRED');
export type ExtensionSupportRequiredError = InstanceType<typeof ExtensionSupportRequiredError>;

/** The requested `A2A-Version` is not supported. */
export const VersionNotSupportedError = /*#__PURE__*/ classOf('VERSION_NOT_SUPPORTED');
export type VersionNotSupportedError = InstanceType<typeof VersionNotSupportedError>;

/** The global budget (spend, tokens or tasks per minute) is exhausted, or its queue is full. */
export const BudgetExceededError = /*#__PURE__*/ classOf('BUDGET_EXCEEDED');
export type BudgetExceededError = InstanceType<typeof BudgetExceededError>;

/** The delegation chain is too deep or revisits an agent. */
export const RecursionLimitError = /*#__PURE__*/ classOf('RECURSION_LIMIT');
export type RecursionLimitError = InstanceType<typeof RecursionLimitError>;

/** The task breaks the caller's task policy (skill, concurrency, cost, tokens, duration). */
export const PolicyViolationError = /*#__PURE__*/ classOf('POLICY_VIOLATION');
export type PolicyViolationError = InstanceType<typeof PolicyViolationError>;

/** The caller sent too many requests. */
export const RateLimitedError = /*#__PURE__*/ classOf('RATE_LIMITED');
export type RateLimitedError = InstanceType<typeof RateLimitedError>;

/** The request has no valid credentials. */
export const UnauthenticatedError = /*#__PURE__*/ classOf('UNAUTHENTICATED');
export type UnauthenticatedError = InstanceType<typeof UnauthenticatedError>;

/** The caller is authenticated but not allowed to do this. */
export const ForbiddenError = /*#__PURE__*/ classOf('FORBIDDEN');
export type ForbiddenError = InstanceType<typeof ForbiddenError>;

/**
 * A backend the server needs (a shared store or ledger, say Redis) did not answer: retry later.
 * `metadata.backend` names it and `metadata.cause` says why (never a stack or a connection string).
 */
export const ServiceUnavailableError = /*#__PURE__*/ classOf('SERVICE_UNAVAILABLE');
export type ServiceUnavailableError = InstanceType<typeof ServiceUnavailableError>;
