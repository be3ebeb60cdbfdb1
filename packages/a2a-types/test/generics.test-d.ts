import { describe, expectTypeOf, it } from 'vitest';
import {
  A2AError,
  type A2ARequestMap,
  type A2AResultMap,
  type Message,
  type OneOf,
  OPERATIONS,
  type ParseResult,
  parseOperationParams,
  parseOperationResult,
  parseProtoJson,
  parseWith,
  type StreamResponse,
  type Task,
  TaskNotFoundError,
  TaskSchema,
} from '../src/index.js';

// Type tests of the public generics: `pnpm test` type-checks this file (vitest typecheck).
describe('public generics', () => {
  it('parseWith and parseProtoJson infer the schema output', () => {
    expectTypeOf(parseWith(TaskSchema, {})).toEqualTypeOf<ParseResult<Task>>();
    expectTypeOf(parseProtoJson('Task', TaskSchema, {})).toEqualTypeOf<ParseResult<Task>>();
    // @ts-expect-error: not a message of a2a.proto
    parseProtoJson('NoSuchMessage', TaskSchema, {});
  });

  it('operations are typed per method', () => {
    expectTypeOf(parseOperationParams('GetTask', {})).toEqualTypeOf<ParseResult<A2ARequestMap['GetTask']>>();
    expectTypeOf(parseOperationResult('SendStreamingMessage', {})).toEqualTypeOf<ParseResult<StreamResponse>>();
    expectTypeOf(OPERATIONS.CancelTask.method).toEqualTypeOf<'CancelTask'>();
    expectTypeOf<A2AResultMap['GetTask']>().toEqualTypeOf<Task>();
    // @ts-expect-error: not an A2A method
    parseOperationParams('message/send', {});
  });

  it('OneOf allows exactly one key', () => {
    type Payload = OneOf<{ task: Task; message: Message }>;
    expectTypeOf<{ task: Task }>().toMatchTypeOf<Payload>();
    expectTypeOf<{ task: Task; message: Message }>().not.toMatchTypeOf<Payload>();
  });

  it('isInstance narrows to the class it is called on', () => {
    const error: unknown = new TaskNotFoundError();
    if (TaskNotFoundError.isInstance(error)) expectTypeOf(error).toEqualTypeOf<TaskNotFoundError>();
    if (A2AError.isInstance(error)) expectTypeOf(error).toEqualTypeOf<A2AError>();
  });
});
