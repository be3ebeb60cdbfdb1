import { SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from './conformance/hosts.js';
import { describeConformance } from './conformance/suite.js';

// The fetch binding in real runtimes other than Node, installed from npm through the lockfile
// (the `deno`, `bun` and `workerd` packages ship their binaries) and started on 127.0.0.1 by the
// test. workerd runs it as a Workers module without `nodejs_compat`, at a compatibility date
// (2024-09-01) where Workers have no Node globals (`Buffer`, `process`, `setImmediate`).
const RUNTIMES = ['deno', 'bun', 'workerd'] as const satisfies readonly Runtime[];
for (const runtime of RUNTIMES) {
  describeConformance(`fetch under ${runtime}`, () => startRuntime(runtime));
}

describe('the runtimes under test', () => {
  const versions: Record<Runtime, RegExp> = { deno: /^deno 2\.\d+/, bun: /^1\.\d+\.\d+/, workerd: /^workerd 20\d\d-\d\d-\d\d/ };
  it.each(RUNTIMES)(
    '%s is the runtime binary installed from its npm package',
    async (runtime) => {
      const host = await startRuntime(runtime);
      try {
        expect(host.version).toMatch(versions[runtime]);
        expect((await host.stats()).liveTasks).toBe(0);
        // The default webhook check loads node:dns on first use; each of these runtimes provides it
        // (workerd too, without nodejs_compat), so a host name resolves.
        const check = (await (await fetch(`${host.url}/_webhook-check`)).json()) as { ok: boolean; addresses?: string[] };
        expect(check).toMatchObject({ ok: true, addresses: expect.arrayContaining(['127.0.0.1']) });
        if (runtime === 'workerd') {
          // The whole suite passed there with no Buffer and no process.
          expect(await (await fetch(`${host.url}/_globals`)).json()).toEqual({ Buffer: 'undefined', process: 'undefined' });
        }
      } finally {
        await host.close();
      }
    },
    60_000,
  );
});

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
