import { A2AError, type A2AErrorOptions } from './a2a-error.js';
import type { ErrorReason } from './codes.js';

/** The request body is not valid JSON. */
export class JSONParseError extends A2AError {
  static override readonly reason = 'JSON_PARSE';
  constructor(options?: A2AErrorOptions) {
    super('JSON_PARSE', options);
    this.name = 'JSONParseError';
  }
}

/** The body is JSON but not a valid JSON-RPC 2.0 request. */
export class InvalidRequestError extends A2AError {
  static override readonly reason = 'INVALID_REQUEST';
  constructor(options?: A2AErrorOptions) {
    super('INVALID_REQUEST', options);
    this.name = 'InvalidRequestError';
  }
}

/** The method does not exist or is not available. */
export class MethodNotFoundError extends A2AError {
  static override readonly reason = 'METHOD_NOT_FOUND';
  constructor(options?: A2AErrorOptions) {
    super('METHOD_NOT_FOUND', options);
    this.name = 'MethodNotFoundError';
  }
}

/** The params failed validation; `fieldViolations` lists every problem. */
export class InvalidParamsError extends A2AError {
  static override readonly reason = 'INVALID_PARAMS';
  constructor(options?: A2AErrorOptions) {
    super('INVALID_PARAMS', options);
    this.name = 'InvalidParamsError';
  }
}

/** An internal error; the message never reveals internals. */
export class InternalError extends A2AError {
  static override readonly reason = 'INTERNAL';
  constructor(options?: A2AErrorOptions) {
    super('INTERNAL', options);
    this.name = 'InternalError';
  }
}

/** The task does not exist or is not accessible to the caller (spec §3.3.2). */
export class TaskNotFoundError extends A2AError {
  static override readonly reason = 'TASK_NOT_FOUND';
  constructor(options?: A2AErrorOptions) {
    super('TASK_NOT_FOUND', options);
    this.name = 'TaskNotFoundError';
  }
}

/** The task is in a state that cannot be canceled. */
export class TaskNotCancelableError extends A2AError {
  static override readonly reason = 'TASK_NOT_CANCELABLE';
  constructor(options?: A2AErrorOptions) {
    super('TASK_NOT_CANCELABLE', options);
    this.name = 'TaskNotCancelableError';
  }
}

/** The agent does not support push notifications. */
export class PushNotificationNotSupportedError extends A2AError {
  static override readonly reason = 'PUSH_NOTIFICATION_NOT_SUPPORTED';
  constructor(options?: A2AErrorOptions) {
    super('PUSH_NOTIFICATION_NOT_SUPPORTED', options);
    this.name = 'PushNotificationNotSupportedError';
  }
}

/** The operation, or this use of it, is not supported. */
export class UnsupportedOperationError extends A2AError {
  static override readonly reason = 'UNSUPPORTED_OPERATION';
  constructor(options?: A2AErrorOptions) {
    super('UNSUPPORTED_OPERATION', options);
    this.name = 'UnsupportedOperationError';
  }
}

/** A media type in the request is not supported. */
export class ContentTypeNotSupportedError extends A2AError {
  static override readonly reason = 'CONTENT_TYPE_NOT_SUPPORTED';
  constructor(options?: A2AErrorOptions) {
    super('CONTENT_TYPE_NOT_SUPPORTED', options);
    this.name = 'ContentTypeNotSupportedError';
  }
}

/** The agent produced a response that breaks the protocol. */
export class InvalidAgentResponseError extends A2AError {
  static override readonly reason = 'INVALID_AGENT_RESPONSE';
  constructor(options?: A2AErrorOptions) {
    super('INVALID_AGENT_RESPONSE', options);
    this.name = 'InvalidAgentResponseError';
  }
}

/** The agent declares an extended card but has none configured. */
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  static override readonly reason = 'EXTENDED_AGENT_CARD_NOT_CONFIGURED';
  constructor(options?: A2AErrorOptions) {
    super('EXTENDED_AGENT_CARD_NOT_CONFIGURED', options);
    this.name = 'ExtendedAgentCardNotConfiguredError';
  }
}

/** The agent requires an extension the client did not declare. */
export class ExtensionSupportRequiredError extends A2AError {
  static override readonly reason = 'EXTENSION_SUPPORT_REQUIRED';
  constructor(options?: A2AErrorOptions) {
    super('EXTENSION_SUPPORT_REQUIRED', options);
    this.name = 'ExtensionSupportRequiredError';
  }
}

/** The requested `A2A-Version` is not supported. */
export class VersionNotSupportedError extends A2AError {
  static override readonly reason = 'VERSION_NOT_SUPPORTED';
  constructor(options?: A2AErrorOptions) {
    super('VERSION_NOT_SUPPORTED', options);
    this.name = 'VersionNotSupportedError';
  }
}

/** The global budget (spend, tokens or tasks per minute) is exhausted, or its queue is full. */
export class BudgetExceededError extends A2AError {
  static override readonly reason = 'BUDGET_EXCEEDED';
  constructor(options?: A2AErrorOptions) {
    super('BUDGET_EXCEEDED', options);
    this.name = 'BudgetExceededError';
  }
}

/** The delegation chain is too deep or revisits an agent. */
export class RecursionLimitError extends A2AError {
  static override readonly reason = 'RECURSION_LIMIT';
  constructor(options?: A2AErrorOptions) {
    super('RECURSION_LIMIT', options);
    this.name = 'RecursionLimitError';
  }
}

/** The task breaks the caller's task policy (skill, concurrency, cost, tokens, duration). */
export class PolicyViolationError extends A2AError {
  static override readonly reason = 'POLICY_VIOLATION';
  constructor(options?: A2AErrorOptions) {
    super('POLICY_VIOLATION', options);
    this.name = 'PolicyViolationError';
  }
}

/** The caller sent too many requests. */
export class RateLimitedError extends A2AError {
  static override readonly reason = 'RATE_LIMITED';
  constructor(options?: A2AErrorOptions) {
    super('RATE_LIMITED', options);
    this.name = 'RateLimitedError';
  }
}

/** The request has no valid credentials. */
export class UnauthenticatedError extends A2AError {
  static override readonly reason = 'UNAUTHENTICATED';
  constructor(options?: A2AErrorOptions) {
    super('UNAUTHENTICATED', options);
    this.name = 'UnauthenticatedError';
  }
}

/** The caller is authenticated but not allowed to do this. */
export class ForbiddenError extends A2AError {
  static override readonly reason = 'FORBIDDEN';
  constructor(options?: A2AErrorOptions) {
    super('FORBIDDEN', options);
    this.name = 'ForbiddenError';
  }
}

/**
 * A backend the server needs (a shared store or ledger, say Redis) did not answer: retry later.
 * `metadata.backend` names it and `metadata.cause` says why (never a stack or a connection string).
 */
export class ServiceUnavailableError extends A2AError {
  static override readonly reason = 'SERVICE_UNAVAILABLE';
  constructor(options?: A2AErrorOptions) {
    super('SERVICE_UNAVAILABLE', options);
    this.name = 'ServiceUnavailableError';
  }
}

/** Every error class by its `ErrorInfo` reason. */
export const ERROR_CLASSES: { readonly [R in ErrorReason]: new (options?: A2AErrorOptions) => A2AError } = {
  JSON_PARSE: JSONParseError,
  INVALID_REQUEST: InvalidRequestError,
  METHOD_NOT_FOUND: MethodNotFoundError,
  INVALID_PARAMS: InvalidParamsError,
  INTERNAL: InternalError,
  TASK_NOT_FOUND: TaskNotFoundError,
  TASK_NOT_CANCELABLE: TaskNotCancelableError,
  PUSH_NOTIFICATION_NOT_SUPPORTED: PushNotificationNotSupportedError,
  UNSUPPORTED_OPERATION: UnsupportedOperationError,
  CONTENT_TYPE_NOT_SUPPORTED: ContentTypeNotSupportedError,
  INVALID_AGENT_RESPONSE: InvalidAgentResponseError,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: ExtendedAgentCardNotConfiguredError,
  EXTENSION_SUPPORT_REQUIRED: ExtensionSupportRequiredError,
  VERSION_NOT_SUPPORTED: VersionNotSupportedError,
  BUDGET_EXCEEDED: BudgetExceededError,
  RECURSION_LIMIT: RecursionLimitError,
  POLICY_VIOLATION: PolicyViolationError,
  RATE_LIMITED: RateLimitedError,
  UNAUTHENTICATED: UnauthenticatedError,
  FORBIDDEN: ForbiddenError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
};
