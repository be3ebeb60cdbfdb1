import { afterEach, describe, expect, it } from 'vitest';
import { InvalidAgentResponseError } from '@a2aplane/a2a-types';
import { AgentCardDiscoveryError, createA2AClient } from '../src/index.js';
import { v0_3 } from '../src/v0_3.js';
import { cardFor, json, startServer, type TestServer } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('protocolVersion 0.3 (v0.3 JSON-RPC through the a2a-types translators)', () => {
  it('sends v0.3 method names and shapes and returns v1.0 results', async () => {
    const server = await startServer((req, res) => {
      const { id } = JSON.parse(req.body) as { id: string };
      json(res, 200, {
        jsonrpc: '2.0',
        id,
        result: { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' } },
      });
    });
    servers.push(server);
    const card = cardFor(server.url, [
      { url: `${server.url}/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/v03`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const client = createA2AClient({ card, protocolVersion: '0.3', v0_3, extensions: ['urn:x'] });
    const result = await client.sendMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const req = server.requests[0]!;
    expect(req.url).toBe('/v03');
    expect(req.headers['a2a-version']).toBe('0.3');
    expect(req.headers['x-a2a-extensions']).toBe('urn:x');
    const body = JSON.parse(req.body);
    expect(body.method).toBe('message/send');
    expect(body.params.message).toMatchObject({ messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] });
  });

  it('fails with no-compatible-interface when the card has no 0.3 JSON-RPC interface', async () => {
    const client = createA2AClient({ card: cardFor('http://127.0.0.1:9'), protocolVersion: '0.3', v0_3 });
    const error = await client.getTask({ id: 't' }).catch((e: unknown) => e);
    expect(AgentCardDiscoveryError.isInstance(error)).toBe(true);
    expect((error as AgentCardDiscoveryError).kind).toBe('no-compatible-interface');
  });

  it("protocolVersion '0.3' without the v0_3 option is a TypeError that names the import", () => {
    expect(() => createA2AClient({ card: cardFor('http://x'), protocolVersion: '0.3' })).toThrow(/a2a-client\/v0_3/);
    expect(() => createA2AClient({ card: cardFor('http://x'), protocolVersion: '0.3' })).toThrow(TypeError);
  });

  it('rejects an unknown protocolVersion with RangeError', () => {
    // @ts-expect-error: wrong value on purpose
    expect(() => createA2AClient({ card: cardFor('http://x'), protocolVersion: '2.0' })).toThrow(RangeError);
  });
});

describe('protocolVersion 0.3: a result the translator refuses', () => {
  it('is InvalidAgentResponseError (its class loaded on demand) naming the v0.3 method', async () => {
    const server = await startServer((req, res) => {
      const { id } = JSON.parse(req.body) as { id: string };
      json(res, 200, { jsonrpc: '2.0', id, result: { kind: 'task', id: 't-1' } });
    });
    servers.push(server);
    const card = cardFor(server.url, [{ url: `${server.url}/v03`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    const client = createA2AClient({ card, protocolVersion: '0.3', v0_3 });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toMatch(/^Invalid v0\.3 GetTask result: /);
  });
});
