import { A2ATimeoutError, A2ATransportError, createA2AClient, type TransportFactory } from '@a2aplane/a2a-client';
import { A2AError } from '@a2aplane/a2a-types';
import { credentials } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGrpcTransportFactory, grpcInterface } from '../src/index.js';
import { collect, createGate, echoExecutor, gatedExecutor, startAgent, type TestAgent, userMessage } from './helpers.js';

let agent: TestAgent | undefined;
let factory: ReturnType<typeof createGrpcTransportFactory> | undefined;
afterEach(async () => {
  factory?.close();
  factory = undefined;
  await agent?.close();
  agent = undefined;
});

/** The factory, counting the transports it builds and the calls they make. */
function countingFactory(): { factory: TransportFactory; built: string[]; calls: string[] } {
  factory = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
  const inner = factory;
  const built: string[] = [];
  const calls: string[] = [];
  return {
    built,
    calls,
    factory: (agentInterface, context) => {
      built.push(agentInterface.url);
      const transport = inner(agentInterface, context);
      return {
        binding: transport.binding,
        url: transport.url,
        call: (method, params, options) => {
          calls.push(method);
          return transport.call(method, params, options);
        },
        open: (method, params, options) => {
          calls.push(method);
          return transport.open(method, params, options);
        },
      };
    },
  };
}

describe('a2a-client with the GRPC transport registered', () => {
  it('picks GRPC when the card lists it and the caller prefers it; every operation goes over gRPC', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const { factory: grpc, built, calls } = countingFactory();
    const client = createA2AClient({ card: agent.card, transports: { GRPC: grpc }, preferredBindings: ['GRPC'] });
    const sent = await client.sendMessage({ message: userMessage('hi') });
    expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = sent.task?.id as string;
    const events = await collect(client.sendStreamingMessage({ message: userMessage('stream') }));
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await client.getTask({ id: taskId })).id).toBe(taskId);
    expect((await client.listTasks({})).tasks).toHaveLength(2);
    const config = await client.createTaskPushNotificationConfig({ taskId, url: 'https://hooks.example.com/x' });
    expect((await client.getTaskPushNotificationConfig({ taskId, id: config.id as string })).url).toBe('https://hooks.example.com/x');
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs).toHaveLength(1);
    await client.deleteTaskPushNotificationConfig({ taskId, id: config.id as string });
    const error = await client.getTask({ id: 'missing' }).catch((e: unknown) => e);
    expect(A2AError.isInstance(error) && error.reason).toBe('TASK_NOT_FOUND');
    expect(built).toEqual([agent.grpc.target]);
    expect(calls).toEqual([
      'SendMessage',
      'SendStreamingMessage',
      'GetTask',
      'ListTasks',
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
      'GetTask',
    ]);
  });

  it('is not used when the caller does not allow it, nor without the registration', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const { factory: grpc, built } = countingFactory();
    const http = createA2AClient({ card: agent.card, transports: { GRPC: grpc }, preferredBindings: ['JSONRPC'] });
    expect((await http.sendMessage({ message: userMessage('hi') })).task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(built).toEqual([]);
    const grpcOnly = { ...agent.card, supportedInterfaces: [grpcInterface(agent.grpc.target)] };
    const unregistered = createA2AClient({ card: grpcOnly, retry: { retries: 0 } });
    await expect(unregistered.listTasks({})).rejects.toThrow();
  });

  it('an unreachable GRPC interface is a transport failure: the client moves on to the next interface', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const { factory: grpc, built } = countingFactory();
    const card = { ...agent.card, supportedInterfaces: [grpcInterface('127.0.0.1:1'), grpcInterface(agent.grpc.target)] };
    const client = createA2AClient({ card, transports: { GRPC: grpc }, retry: { retries: 1, initialDelayMs: 1, maxDelayMs: 1 } });
    expect((await client.listTasks({})).tasks).toEqual([]);
    expect(built).toEqual(['127.0.0.1:1', agent.grpc.target]);
  });

  it("the client's timeout reaches the gRPC call (A2ATimeoutError), and the server releases the wait", async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    const { factory: grpc } = countingFactory();
    const client = createA2AClient({
      card: agent.card,
      transports: { GRPC: grpc },
      preferredBindings: ['GRPC'],
      timeoutMs: 300,
      retry: { retries: 0 },
    });
    const error = await client.sendMessage({ message: userMessage('slow') }).catch((e: unknown) => e);
    expect(A2ATimeoutError.isInstance(error)).toBe(true);
    const current = agent;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(current.core.stats().subscribers).toBe(0);
    gate.open();
  });
});

describe('stream resume over gRPC', () => {
  it('a dropped stream resumes with SubscribeToTask over the gRPC transport (from the task snapshot: gRPC has no event ids)', async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    factory = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
    const inner = factory;
    const opened: Array<{ method: string; lastEventId: string | undefined }> = [];
    let dropped = false;
    const dropping: TransportFactory = (agentInterface, context) => {
      const transport = inner(agentInterface, context);
      return {
        binding: transport.binding,
        url: transport.url,
        call: (method, params, options) => transport.call(method, params, options),
        open: async (method, params, options) => {
          opened.push({ method, lastEventId: options.lastEventId });
          const items = await transport.open(method, params, options);
          if (dropped) return items;
          dropped = true;
          // The first stream breaks after two events, as a connection reset would.
          return (async function* () {
            let n = 0;
            for await (const item of items) {
              yield item;
              if (++n === 2) throw new A2ATransportError('stream dropped', { retryable: true });
            }
          })();
        },
      };
    };
    const client = createA2AClient({ card: agent.card, transports: { GRPC: dropping }, preferredBindings: ['GRPC'] });
    const seen: string[] = [];
    for await (const event of client.sendStreamingMessage({ message: userMessage('resume me') })) {
      seen.push(Object.keys(event)[0] as string);
      if (opened.length === 2 && seen.length === 3) gate.open();
    }
    expect(opened.map((o) => o.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    expect(opened[1]?.lastEventId).toBeUndefined();
    // Two events of the first stream, the task snapshot of the resumed one, then the rest to COMPLETED.
    expect(seen.slice(0, 3)).toEqual(['task', 'statusUpdate', 'task']);
    expect(seen.at(-1)).toBe('statusUpdate');
  });
});
