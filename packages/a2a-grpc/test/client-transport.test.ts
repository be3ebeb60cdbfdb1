import { A2ATimeoutError, A2ATransportError, createA2AClient, defaultTransports, type TransportFactory } from '@a2aplane/a2a-client';
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

/**
 * A factory whose first stream breaks after two events, as a connection reset would; it records
 * every stream opened (method and `lastEventId`) and opens `gate` once the client resubscribed.
 */
function droppingFactory(inner: TransportFactory, gate: { open(): void }) {
  const opened: Array<{ method: string; lastEventId: string | undefined }> = [];
  const factory: TransportFactory = (agentInterface, context) => {
    const transport = inner(agentInterface, context);
    return {
      binding: transport.binding,
      url: transport.url,
      call: (method, params, options) => transport.call(method, params, options),
      open: async (method, params, options) => {
        opened.push({ method, lastEventId: options.lastEventId });
        const items = await transport.open(method, params, options);
        if (opened.length > 1) {
          gate.open();
          return items;
        }
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
  return { factory, opened };
}

describe('stream resume over gRPC', () => {
  /** The events a client reads from a stream that drops after two events, over `binding`. */
  async function resumed(binding: 'GRPC' | 'JSONRPC') {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    factory = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
    const inner = binding === 'GRPC' ? factory : (defaultTransports.JSONRPC as TransportFactory);
    const dropping = droppingFactory(inner, gate);
    const client = createA2AClient({
      card: agent.card,
      transports: { [binding]: dropping.factory },
      preferredBindings: [binding],
      allowInsecureLoopback: true,
    });
    const events: string[] = [];
    for await (const event of client.sendStreamingMessage({ message: userMessage('resume me') })) {
      const kind = Object.keys(event)[0] as string;
      const state = (event as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } })[
        kind as 'task' | 'statusUpdate'
      ]?.status?.state;
      events.push(state ? `${kind} ${state}` : kind);
    }
    await agent.close();
    agent = undefined;
    return { events, opened: dropping.opened };
  }

  it('a dropped stream resumes with SubscribeToTask after the last event id, as over JSON-RPC (SSE Last-Event-ID)', async () => {
    const grpc = await resumed('GRPC');
    expect(grpc.opened.map((o) => o.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    // Resumed after the second event: no task snapshot, no event twice.
    expect(grpc.opened[1]?.lastEventId).toMatch(/^\d+$/);
    expect(grpc.events).toEqual([
      'task TASK_STATE_SUBMITTED',
      'statusUpdate TASK_STATE_WORKING',
      'artifactUpdate',
      'statusUpdate TASK_STATE_COMPLETED',
    ]);
    const http = await resumed('JSONRPC');
    expect(http.opened).toEqual(grpc.opened);
    expect(http.events).toEqual(grpc.events);
  });
});
