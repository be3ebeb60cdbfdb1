import { SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from './conformance/hosts.js';
import { describeConformance } from './conformance/suite.js';

// The fetch binding in real runtimes other than Node, installed from npm through the lockfile
// (the `deno` and `bun` packages ship their binaries) and started on 127.0.0.1 by the test.
for (const runtime of ['deno', 'bun'] as const satisfies readonly Runtime[]) {
  describeConformance(`fetch under ${runtime}`, () => startRuntime(runtime));
}

describe('the official @a2a-js/sdk client against the fetch binding in Deno', () => {
  let host: Awaited<ReturnType<typeof startRuntime>>;
  beforeAll(async () => {
    host = await startRuntime('deno');
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  const message = (text: string) =>
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

  it.each([['JSONRPC'], ['HTTP+JSON']] as const)('over %s: card, SendMessage and a stream', async (binding) => {
    expect(host.version).toMatch(/^deno \d+\.\d+/);
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    const client = await factory.createFromUrl(host.url);
    expect(client.transport.protocolName).toBe(binding);
    expect((await client.getAgentCard()).name).toBe('conformance');
    const task = (await client.sendMessage(message('official'))) as { status?: { state?: TaskState } };
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(message('slow'))) events.push(event);
    expect(events.filter((event) => event.payload?.$case === 'artifactUpdate')).toHaveLength(5);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
