import { describe, expect, it } from 'vitest';
import {
  A2AError,
  type A2AErrorOptions,
  BudgetExceededError,
  ContentTypeNotSupportedError,
  ERROR_CLASSES,
  ERROR_CODE_TABLE,
  type ErrorReason,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  ForbiddenError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JSONParseError,
  MethodNotFoundError,
  PolicyViolationError,
  PushNotificationNotSupportedError,
  RateLimitedError,
  RecursionLimitError,
  ServiceUnavailableError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  fromJsonRpcError,
  fromRestError,
} from '../src/index.js';
import * as exported from '../src/index.js';

type ErrorClass = (new (options?: A2AErrorOptions) => A2AError) & { isInstance(value: unknown): boolean };

// Spec §5.4 table plus the JSON-RPC standard codes (§9.5) and the control-plane reasons.
const TABLE: [ErrorClass, number, number, string, string][] = [
  [TaskNotFoundError, -32001, 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
  [TaskNotCancelableError, -32002, 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
  [PushNotificationNotSupportedError, -32003, 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
  [UnsupportedOperationError, -32004, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
  [ContentTypeNotSupportedError, -32005, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
  [InvalidAgentResponseError, -32006, 500, 'INTERNAL', 'INVALID_AGENT_RESPONSE'],
  [ExtendedAgentCardNotConfiguredError, -32007, 400, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
  [ExtensionSupportRequiredError, -32008, 400, 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED'],
  [VersionNotSupportedError, -32009, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
  [JSONParseError, -32700, 400, 'INVALID_ARGUMENT', 'JSON_PARSE'],
  [InvalidRequestError, -32600, 400, 'INVALID_ARGUMENT', 'INVALID_REQUEST'],
  [MethodNotFoundError, -32601, 404, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND'],
  [InvalidParamsError, -32602, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
  [InternalError, -32603, 500, 'INTERNAL', 'INTERNAL'],
  [BudgetExceededError, -32000, 429, 'RESOURCE_EXHAUSTED', 'BUDGET_EXCEEDED'],
  [RecursionLimitError, -32000, 403, 'PERMISSION_DENIED', 'RECURSION_LIMIT'],
  [PolicyViolationError, -32000, 403, 'PERMISSION_DENIED', 'POLICY_VIOLATION'],
  [RateLimitedError, -32000, 429, 'RESOURCE_EXHAUSTED', 'RATE_LIMITED'],
  [UnauthenticatedError, -32000, 401, 'UNAUTHENTICATED', 'UNAUTHENTICATED'],
  [ForbiddenError, -32000, 403, 'PERMISSION_DENIED', 'FORBIDDEN'],
  [ServiceUnavailableError, -32000, 503, 'UNAVAILABLE', 'SERVICE_UNAVAILABLE'],
];

describe('error classes (spec §5.4, §9.5, §11.6)', () => {
  it('the table covers every class', () => {
    expect(TABLE.map((row) => row[4]).sort()).toEqual(Object.keys(ERROR_CODE_TABLE).sort());
    expect(Object.keys(ERROR_CLASSES).sort()).toEqual(Object.keys(ERROR_CODE_TABLE).sort());
  });

  it('each class is exported under its own name, and a subclass of it works like a declared class', () => {
    for (const Class of Object.values(ERROR_CLASSES)) {
      expect((exported as Record<string, unknown>)[Class.name]).toBe(Class);
    }
    class TaskGoneError extends TaskNotFoundError {
      constructor() {
        super({ message: 'gone' });
        this.name = 'TaskGoneError';
      }
    }
    const error = new TaskGoneError();
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(TaskNotFoundError.isInstance(error)).toBe(true);
    expect(TaskGoneError.reason).toBe('TASK_NOT_FOUND');
    expect([error.code, error.message, error.name]).toEqual([-32001, 'gone', 'TaskGoneError']);
  });

  it.each(TABLE)('%o: code, status, reason', (Class, code, httpStatus, grpcStatus, reason) => {
    const error = new Class();
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(httpStatus);
    expect(error.grpcStatus).toBe(grpcStatus);
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(ERROR_CODE_TABLE[reason as ErrorReason].message);
    expect(error.name).toBe(Class.name);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(A2AError);
    expect(Class.isInstance(error)).toBe(true);
    expect(A2AError.isInstance(error)).toBe(true);
  });

  it.each(TABLE)('%o: JSON-RPC round trip keeps class, message, metadata and retryAfterSeconds', (Class) => {
    const original = new Class({ message: 'custom', metadata: { taskId: 't-1' }, retryAfterSeconds: 30 });
    const wire = JSON.parse(JSON.stringify(original.toJsonRpcError()));
    const back = fromJsonRpcError(wire);
    expect(Class.isInstance(back)).toBe(true);
    expect(back.constructor).toBe(Class);
    expect(back.message).toBe('custom');
    expect(back.metadata).toEqual({ taskId: 't-1', retryAfterSeconds: '30' });
    expect(back.retryAfterSeconds).toBe(30);
  });

  it.each(TABLE)('%o: REST round trip keeps class, message, metadata and retryAfterSeconds', (Class) => {
    const original = new Class({ message: 'custom', metadata: { taskId: 't-1' }, retryAfterSeconds: 2 });
    const body = JSON.parse(JSON.stringify(original.toRestError()));
    expect(body.error.code).toBe(original.httpStatus);
    expect(body.error.status).toBe(original.grpcStatus);
    const back = fromRestError(original.httpStatus, body);
    expect(Class.isInstance(back)).toBe(true);
    expect(back.constructor).toBe(Class);
    expect(back.message).toBe('custom');
    expect(back.metadata).toEqual({ taskId: 't-1', retryAfterSeconds: '2' });
    expect(back.retryAfterSeconds).toBe(2);
  });

  it('wire shapes', () => {
    const error = new TaskNotFoundError({ metadata: { taskId: 't' } });
    expect(error.toJsonRpcError()).toEqual({
      code: -32001,
      message: 'Task not found',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't' },
        },
      ],
    });
    expect(new ForbiddenError().toRestError()).toEqual({
      error: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'Permission denied',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'FORBIDDEN', domain: 'a2aplane' }],
      },
    });
  });

  it('extra details survive the round trip; BadRequest violations are readable', () => {
    const badRequest = {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'message.parts', description: 'at least one element is required' }],
    };
    const back = fromJsonRpcError(new InvalidParamsError({ details: [badRequest] }).toJsonRpcError());
    expect(back.details).toEqual([badRequest]);
    expect(back.fieldViolations).toEqual(badRequest.fieldViolations);
  });

  it('isInstance tells classes apart', () => {
    expect(TaskNotFoundError.isInstance(new TaskNotCancelableError())).toBe(false);
    expect(TaskNotCancelableError.isInstance(new TaskNotFoundError())).toBe(false);
    expect(TaskNotFoundError.isInstance(new Error('x'))).toBe(false);
    expect(TaskNotFoundError.isInstance({ reason: 'TASK_NOT_FOUND' })).toBe(false);
    expect(A2AError.isInstance(null)).toBe(false);
    expect(A2AError.isInstance('TASK_NOT_FOUND')).toBe(false);
  });

  it('the cause is kept but never serialized', () => {
    const cause = new Error('db down');
    const error = new InternalError({ cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error.toJsonRpcError())).not.toContain('db down');
  });

  it('unknown JSON-RPC codes keep their code on a plain A2AError', () => {
    const error = fromJsonRpcError({ code: -32099, message: 'vendor', data: 'not an array' });
    expect(error.constructor).toBe(A2AError);
    expect(error.code).toBe(-32099);
    expect(error.reason).toBe('UNKNOWN');
    expect(error.message).toBe('vendor');
    expect(fromJsonRpcError({ code: 1, message: 5 }).message).toBe('Unknown error');
  });

  it('-32000 picks the control-plane class by ErrorInfo reason, or stays generic', () => {
    const withReason = fromJsonRpcError(new RateLimitedError().toJsonRpcError());
    expect(RateLimitedError.isInstance(withReason)).toBe(true);
    const unknownReason = fromJsonRpcError({
      code: -32000,
      message: 'x',
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SOMETHING_ELSE', domain: 'other' }],
    });
    expect(unknownReason.constructor).toBe(A2AError);
    expect(unknownReason.reason).toBe('SOMETHING_ELSE');
    expect(unknownReason.domain).toBe('other');
  });

  it('REST errors without ErrorInfo fall back on the HTTP status', () => {
    expect(UnauthenticatedError.isInstance(fromRestError(401, {}))).toBe(true);
    expect(RateLimitedError.isInstance(fromRestError(429, 'Too many'))).toBe(true);
    const generic = fromRestError(503, { error: { message: 'down' } });
    expect(generic.constructor).toBe(A2AError);
    expect(generic.httpStatus).toBe(503);
    expect(generic.retryable).toBe(true);
    expect(generic.message).toBe('down');
    expect(fromRestError(418, null).message).toBe('HTTP 418');
  });

  it('a non-numeric retryAfterSeconds is ignored', () => {
    const error = fromJsonRpcError({
      code: -32000,
      message: 'slow down',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMITED',
          domain: 'a2aplane',
          metadata: { retryAfterSeconds: 'soon', ignored: 5 },
        },
      ],
    });
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(error.metadata).toEqual({ retryAfterSeconds: 'soon' });
  });
});

describe('createErrorBrand', () => {
  it('recognises an error marked by another copy of the same brand, and nothing else', async () => {
    const { createErrorBrand } = await import('../src/index.js');
    const here = createErrorBrand('@a2aplane/test/SomeError');
    const otherCopy = createErrorBrand('@a2aplane/test/SomeError');
    const error = new Error('x');
    otherCopy.mark(error);
    expect(here.is(error)).toBe(true);
    expect(Object.keys(error)).toEqual([]); // non-enumerable: never serialised
    expect(createErrorBrand('@a2aplane/test/OtherError').is(error)).toBe(false);
    expect(here.is(new Error('y'))).toBe(false);
    expect(here.is(null)).toBe(false);
    expect(here.is('SomeError')).toBe(false);
  });
});
