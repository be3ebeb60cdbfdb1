import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFromJson, GRPC_OPERATIONS } from '../src/index.js';
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
beforeAll(async () => {
  agent = await startAgent({ card: baseCard(), executor });
});
afterAll(async () => {
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
