import type { AgentCard, SendMessageRequest } from '@a2aplane/a2a-types';

/** A typical card: two interfaces, streaming, three skills. */
export function typicalCard(baseUrl = 'http://127.0.0.1:8080'): AgentCard {
  return {
    name: 'bench-agent',
    description: 'An agent used by the a2aplane benchmarks.',
    version: '1.0.0',
    provider: { organization: 'a2aplane', url: 'https://example.com' },
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'echo', name: 'Echo', description: 'Echoes its input.', tags: ['echo', 'test'] },
      { id: 'summarize', name: 'Summarize', description: 'Summarizes a document.', tags: ['text'], examples: ['summarize this'] },
      { id: 'search', name: 'Search', description: 'Searches the memory tier.', tags: ['memory', 'vectors'] },
    ],
  } as AgentCard;
}

/** The params of the SendMessage request every throughput run sends. */
export function sendMessageParams(text = 'hello'): SendMessageRequest {
  return {
    message: { messageId: '9f0c1f8e-4a51-4c2b-9d0e-3a1b2c3d4e5f', role: 'ROLE_USER', parts: [{ text }] },
  } as SendMessageRequest;
}

/** The JSON-RPC body of that request, as sent on the wire. */
export function sendMessageBody(text = 'hello'): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams(text) });
}
