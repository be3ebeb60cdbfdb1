import { createA2AClient, type ResponseInfo } from '@a2aplane/a2a-client';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTransportFactory, encodeFromJson, GRPC_OPERATIONS, type GrpcTransportFactory } from '../src/index.js';
import { baseCard, startAgent, type TestAgent, userMessage } from './helpers.js';

/**
 * Spec §3.2 / the extensions topic: the server echoes the extensions the executor activated for a
 * request, on every binding: the `A2A-Extensions` response header (JSON-RPC, REST) and the
 * `a2a-extensions` response metadata (gRPC). Requested but not activated ones are not echoed, and
 * an executor cannot activate one the caller did not request.
 */
const ACTIVE = 'urn:x:active';
const IDLE = 'urn:x:idle';
const activations: boolean[] = [];
const executor: AgentExecutor = {
  async execute(context, events) {
    activations.push(context.activateExtension(ACTIVE), context.activateExtension('urn:x:not-requested'));
    const task = createTaskUpdater(context, events);
    task.submit();
    task.complete('done');
  },
};

let agent: TestAgent;
let grpcTransports: GrpcTransportFactory;
beforeAll(async () => {
  agent = await startAgent({ card: baseCard(), executor });
  grpcTransports = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
});
afterAll(async () => {
  grpcTransports?.close();
  await agent?.close();
});

const requested = `${ACTIVE}, ${IDLE}`;
const headersFor = (contentType: string) => ({ 'content-type': contentType, 'A2A-Version': '1.0', 'A2A-Extensions': requested });

/** A raw unary gRPC SendMessage; resolves the response metadata's `a2a-extensions`. */
function grpcEcho(target: string): Promise<string | undefined> {
  const client = new Client(target, credentials.createInsecure());
  const operation = GRPC_OPERATIONS.get('SendMessage');
  if (!operation) throw new Error('no SendMessage operation');
  const body = Buffer.from(encodeFromJson(operation.input, { message: userMessage('hi') }));
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  metadata.set('a2a-extensions', requested);
  return new Promise((resolve, reject) => {
    let echoed: string | undefined;
    const call = client.makeUnaryRequest(
      '/lf.a2a.v1.A2AService/SendMessage',
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      metadata,
      (error) => {
        client.close();
        if (error) reject(error);
        else resolve(echoed);
      },
    );
    call.on('metadata', (received: Metadata) => {
      echoed = received.get('a2a-extensions')[0]?.toString();
    });
  });
}

describe('activated extensions are echoed (spec §3.2)', () => {
  it('JSON-RPC: the A2A-Extensions response header', async () => {
    const response = await fetch(`${agent.httpUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: headersFor('application/json'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('a2a-extensions')).toBe(ACTIVE);
    expect(activations.splice(0)).toEqual([true, false]);
  });

  it('REST: the A2A-Extensions response header', async () => {
    const response = await fetch(`${agent.httpUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: headersFor('application/a2a+json'),
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('a2a-extensions')).toBe(ACTIVE);
    expect(activations.splice(0)).toEqual([true, false]);
  });

  it('gRPC: the a2a-extensions response metadata', async () => {
    expect(await grpcEcho(agent.grpc.target)).toBe(ACTIVE);
    expect(activations.splice(0)).toEqual([true, false]);
  });

  it('nothing is echoed when nothing was activated', async () => {
    const response = await fetch(`${agent.httpUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': IDLE },
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('a2a-extensions')).toBeNull();
    expect(activations.splice(0)).toEqual([false, false]);
  });
});

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const clientOver = (binding: (typeof BINDINGS)[number], extensions: string[]) =>
  createA2AClient({
    card: agent.card,
    transports: { GRPC: grpcTransports },
    preferredBindings: [binding],
    extensions,
    retry: { retries: 0 },
  });

describe('the client exposes the activated extensions (CallOptions.onResponse)', () => {
  it.each(BINDINGS)('%s: a unary call reports what the agent echoed', async (binding) => {
    const seen: ResponseInfo[] = [];
    const client = clientOver(binding, [ACTIVE, IDLE]);
    const result = await client.sendMessage({ message: userMessage('hi') }, { onResponse: (info) => seen.push(info) });
    expect(result.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(seen).toEqual([{ activatedExtensions: [ACTIVE] }]);
    expect(activations.splice(0)).toEqual([true, false]);
  });

  it.each(BINDINGS)('%s: a stream reports them once it is open', async (binding) => {
    const seen: ResponseInfo[] = [];
    const client = clientOver(binding, [ACTIVE]);
    const events: unknown[] = [];
    for await (const event of client.sendStreamingMessage({ message: userMessage('hi') }, { onResponse: (info) => seen.push(info) })) {
      // The head is written when the stream starts, after the executor ran its first step here.
      expect(seen.length).toBe(1);
      events.push(event);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(seen.length).toBe(1);
    activations.splice(0);
  });

  it.each(BINDINGS)('%s: nothing activated is an empty list, and a hook that throws fails the call', async (binding) => {
    const seen: ResponseInfo[] = [];
    const client = clientOver(binding, [IDLE]);
    await client.sendMessage({ message: userMessage('hi') }, { onResponse: (info) => seen.push(info) });
    expect(seen).toEqual([{ activatedExtensions: [] }]);
    const refusal = new Error('not what I asked for');
    await expect(
      client.sendMessage(
        { message: userMessage('hi') },
        {
          onResponse: () => {
            throw refusal;
          },
        },
      ),
    ).rejects.toBe(refusal);
    activations.splice(0);
  });
});
