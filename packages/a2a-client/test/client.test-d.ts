import type { ListTasksResponse, SendMessageResponse, StreamResponse, Task } from '@a2aplane/a2a-types';
import { describe, expectTypeOf, it } from 'vitest';
import { type A2AClient, createA2AClient } from '../src/index.js';

// Type tests of the client's per-method generics (vitest typecheck, part of `pnpm test`).
describe('A2AClient generics', () => {
  it('each call returns its operation result type', () => {
    const client = createA2AClient({ card: {} as never });
    expectTypeOf(client).toEqualTypeOf<A2AClient>();
    expectTypeOf(client.sendMessage).returns.resolves.toEqualTypeOf<SendMessageResponse>();
    expectTypeOf(client.getTask).returns.resolves.toEqualTypeOf<Task>();
    expectTypeOf(client.listTasks).returns.resolves.toEqualTypeOf<ListTasksResponse>();
    expectTypeOf(client.sendStreamingMessage).returns.toEqualTypeOf<AsyncIterable<StreamResponse>>();
  });

  it('params are checked at compile time', () => {
    const client = createA2AClient({ card: {} as never });
    // @ts-expect-error: a message needs messageId, role and parts
    void client.sendMessage({ message: { text: 'hi' } });
    // @ts-expect-error: GetTask takes an id
    void client.getTask({ taskId: 't' });
  });
});
